package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/prices/quote"
	"github.com/memplan/memplan/reports/measured"
	"github.com/memplan/memplan/units"
	"github.com/spf13/cobra"
)

type pricesImportOptions struct {
	Sheet     string
	Map       string
	Currency  string
	Date      string
	Source    string
	Name      string
	Out       string
	Force     bool
	PriceFrom string

	DIMMGeneration string
	DIMMType       string
	DriveClass     string
	NAND           string
	ReadLatency    string
	WriteLatency   string
	ReadIOPS       float64
	WriteIOPS      float64
	DWPD           float64
}

func (o *pricesImportOptions) AddFlags(c *cobra.Command) {
	f := c.Flags()
	f.StringVar(&o.Sheet, "sheet", "", "worksheet to read (default: the first with a recognisable header)")
	f.StringVar(&o.Map, "map", "", `which columns hold what, e.g. "sku=B,desc=C,qty=D,price=F" (letters or 1-based numbers; also total=, currency=); overrides detection`)
	f.StringVar(&o.Currency, "currency", "", "ISO currency of the prices (default: from the price cells or header)")
	f.StringVar(&o.Date, "date", "", "when the prices were quoted, e.g. 2026-03-01 (default: a \"Date\" cell above the table)")
	f.StringVar(&o.Source, "source", "", `where the prices come from, e.g. "Vendor X quote 1234" (default: the file name)`)
	f.StringVar(&o.Name, "name", "", "catalog name (default: the file name without extension)")
	f.StringVarP(&o.Out, "out", "o", "", "write the catalog to FILE (atomically) instead of standard output")
	f.BoolVar(&o.Force, "force", false, "overwrite --out FILE if it exists")
	f.StringVar(&o.PriceFrom, "price-from", "", "when a row's qty x unit price is not its line total: `unit` keeps the unit price, total takes total / qty (default: refuse, naming the rows)")
	f.StringVar(&o.DIMMGeneration, "dimm-generation", "", "DDR generation for DIMM and server rows that do not state one (DDR4, DDR5)")
	f.StringVar(&o.DIMMType, "dimm-type", "", "type for DIMM rows that do not state one (RDIMM, LRDIMM, UDIMM, MRDIMM)")
	f.StringVar(&o.DriveClass, "drive-class", "", "class for drive rows that do not state an interface (nvme-ssd, sata-ssd, hdd)")
	f.StringVar(&o.NAND, "nand", "", "NAND type for SSD rows that do not state one (SLC, MLC, TLC, QLC)")
	f.StringVar(&o.ReadLatency, "drive-read-latency", "", "4 KiB random read latency for every imported drive, e.g. 85us (default: class default)")
	f.StringVar(&o.WriteLatency, "drive-write-latency", "", "4 KiB random write latency for every imported drive, e.g. 20us (default: class default)")
	f.Float64Var(&o.ReadIOPS, "drive-read-iops", 0, "4 KiB random read IOPS for every imported drive (default: class default)")
	f.Float64Var(&o.WriteIOPS, "drive-write-iops", 0, "4 KiB random write IOPS for every imported drive (default: class default)")
	f.Float64Var(&o.DWPD, "drive-dwpd", 0, "drive writes per day for SSD rows that state no endurance (default: class default)")
	_ = c.MarkFlagFilename("out", "yaml", "yml")
	for flag, vals := range map[string][]string{
		"dimm-generation": {"DDR4", "DDR5"},
		"dimm-type":       {"RDIMM", "LRDIMM", "UDIMM", "MRDIMM"},
		"drive-class":     {prices.ClassNVMe, prices.ClassSATASSD, prices.ClassHDD},
		"nand":            {"SLC", "MLC", "TLC", "QLC"},
		"price-from":      {"unit", "total"},
	} {
		_ = c.RegisterFlagCompletionFunc(flag, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		})
	}
}

func newPricesImportCommand(d *deps) *cobra.Command {
	var o pricesImportOptions
	c := &cobra.Command{
		Use:   "import QUOTE.xlsx|QUOTE.csv",
		Short: "Turn a vendor quote or procurement spreadsheet into a price catalog to review",
		Long: `import reads a quote (.xlsx or .csv), finds the part number, description,
quantity and unit price columns, recognises DIMMs, drives and servers from
their descriptions and writes a price catalog. Where the quote has both a
unit price and a line total, quantity x unit price is checked against the
total. Rows it skips (totals, tax, shipping, notes) and rows it cannot
recognise are listed with the reason.
Drive latency and IOPS, which no quote states, come from the embedded
catalogs' figures for the drive's class unless given with --drive-*; the
catalog says which figures are class defaults. A server's memory layout
(slots, channels), drive bays and OS reserve are copied from an embedded
platform as placeholders and listed as "fill in by hand". See
docs/import.md.`,
		Example: `  memplan prices import quote.xlsx --out vendor-x.yaml
  memplan prices import quote.csv --currency EUR --date 2026-03-01 --source "Vendor X quote 1234"
  memplan prices import quote.xlsx --sheet Memory --map "sku=B,desc=C,qty=D,price=F"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPricesImport(cmd.Context(), o, args[0], d.Stdout, d.Stderr)
		},
	}
	o.AddFlags(c)
	return c
}

func (o pricesImportOptions) quoteOptions() (quote.Options, error) {
	q := quote.Options{Sheet: o.Sheet, Currency: strings.ToUpper(o.Currency), Source: o.Source, Name: o.Name, OutName: o.Out, PriceFrom: strings.ToLower(o.PriceFrom)}
	var err error
	if o.Map != "" {
		if q.Map, err = quote.ParseMap(o.Map); err != nil {
			return q, err
		}
	}
	if o.Date != "" {
		if q.Date, err = units.ParseDate(o.Date); err != nil {
			return q, fmt.Errorf("--date: %w", err)
		}
	}
	f := quote.Fill{
		DIMMGeneration: strings.ToUpper(o.DIMMGeneration), DIMMType: strings.ToUpper(o.DIMMType),
		DriveClass: strings.ToLower(o.DriveClass), NAND: strings.ToUpper(o.NAND),
		ReadIOPS: o.ReadIOPS, WriteIOPS: o.WriteIOPS, DWPD: o.DWPD,
	}
	for _, d := range []struct {
		flag, v string
		into    *units.Duration
	}{{"--drive-read-latency", o.ReadLatency, &f.ReadLatency}, {"--drive-write-latency", o.WriteLatency, &f.WriteLatency}} {
		if d.v == "" {
			continue
		}
		if *d.into, err = units.ParseDuration(d.v); err != nil || *d.into <= 0 {
			return q, usagef("%s %q: expected a positive duration such as 85us", d.flag, d.v)
		}
	}
	q.Fill = f
	if err := q.Check(); err != nil {
		return q, err
	}
	return q, nil
}

func runPricesImport(ctx context.Context, o pricesImportOptions, path string, stdout, stderr io.Writer) error {
	if o.Out != "" {
		if absPath(o.Out) == absPath(path) {
			return usagef("--out %s is the quote itself; write the catalog to another file", o.Out)
		}
		if !o.Force && fileExists(o.Out) {
			return usagef("%s exists; use --force to overwrite it", o.Out)
		}
	}
	qo, err := o.quoteOptions()
	if err != nil {
		return err
	}
	wb, err := quote.ReadFileContext(ctx, path)
	if err != nil {
		return err
	}
	res, err := quote.Import(wb, qo)
	if res != nil {
		measured.WriteImport(stderr, res)
	}
	if err != nil {
		return err
	}
	if o.Out == "" {
		_, err = stdout.Write(res.YAML)
		return err
	}
	if err := writeAtomic(o.Out, res.YAML); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s; review it, then use it with --prices %s\n", o.Out, o.Out)
	return nil
}
