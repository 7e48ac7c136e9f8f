package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/prices"
	"github.com/spf13/cobra"
)

func newPricesCommand(d *deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "prices",
		Short: "List, show and check price catalogs",
	}
	c.AddCommand(newPricesListCommand(d), newPricesShowCommand(d), newPricesValidateCommand(d))
	c.AddCommand(newPricesImportCommand(d))
	return c
}

type pricesListOptions struct {
	Catalogs []string
	Files    []string
}

func newPricesListCommand(d *deps) *cobra.Command {
	var o pricesListOptions
	c := &cobra.Command{
		Use:   "list",
		Short: "List the parts and prices of the embedded catalogs and any --prices files",
		Example: `  memplan prices list
  memplan prices list --catalog intel-2009
  memplan prices list --prices quote.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runPricesList(o, d.Stdout) },
	}
	c.Flags().StringArrayVar(&o.Catalogs, "catalog", nil, "embedded catalog to list (default: all of them); one of "+strings.Join(prices.EmbeddedNames(), ", "))
	c.Flags().StringArrayVar(&o.Files, "prices", nil, "price catalog file to list as well; repeatable")
	_ = c.RegisterFlagCompletionFunc("catalog", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return prices.EmbeddedNames(), cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

func runPricesList(o pricesListOptions, stdout io.Writer) error {
	names := o.Catalogs
	if len(names) == 0 && len(o.Files) == 0 {
		names = prices.EmbeddedNames()
	}
	var cats []*prices.Catalog
	for _, n := range names {
		c, err := prices.Embedded(n)
		if err != nil {
			return err
		}
		cats = append(cats, c)
	}
	for _, f := range o.Files {
		c, err := prices.Load(f)
		if err != nil {
			return err
		}
		cats = append(cats, c)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for i, c := range cats {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "catalog %s (%s), %s, prices of %s\n", c.Name, c.File, c.Currency, c.Date)
		fmt.Fprintf(tw, "source: %s\n", c.Source)
		if len(c.DIMMs) > 0 {
			fmt.Fprintln(tw, "DIMM\tcapacity\ttype\tspeed\tprice\t")
			for _, d := range c.DIMMs {
				fmt.Fprintf(tw, "%s\t%s\t%s %s\t%d\t%s\t\n", d.SKU, d.Capacity, d.Generation, d.Type, d.Speed, d.Price)
			}
		}
		if len(c.Drives) > 0 {
			fmt.Fprintln(tw, "drive\tcapacity\tclass\tread/write\tprice\t")
			for _, d := range c.Drives {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s/%s\t%s\t\n", d.SKU, d.Capacity.DecimalString(), d.FactorClass(), d.ReadLatency, d.WriteLatency, d.Price)
			}
		}
		if len(c.Platforms) > 0 {
			fmt.Fprintln(tw, "platform\tslots/channels\tmemory\tbays\tprice\t")
			for _, p := range c.Platforms {
				fmt.Fprintf(tw, "%s\t%d/%d\t%s %s\t%d\t%s\t\n", p.SKU, p.Memory.Slots, p.Memory.Channels, p.Memory.Generation, strings.Join(p.Memory.Types, "/"), p.Bays, p.Price)
			}
		}
	}
	return tw.Flush()
}

func newPricesShowCommand(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:       "show NAME",
		Short:     "Print an embedded catalog as YAML (a starting point for your own)",
		Args:      cobra.ExactArgs(1),
		ValidArgs: prices.EmbeddedNames(),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := prices.EmbeddedSource(args[0])
			if err != nil {
				return usagef("no embedded catalog %q; embedded catalogs are %s", args[0], strings.Join(prices.EmbeddedNames(), ", "))
			}
			_, err = d.Stdout.Write(data)
			return err
		},
	}
}

func newPricesValidateCommand(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check price catalog files and report the first problem in each",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var failed []error
			for _, f := range args {
				c, err := prices.Load(f)
				if err != nil {
					failed = append(failed, err)
					continue
				}
				fmt.Fprintf(d.Stdout, "%s: ok: catalog %s, %s, %s: %d %s, %d %s, %d %s\n", f, c.Name, c.Currency, c.Date,
					len(c.DIMMs), plural(len(c.DIMMs), "DIMM", "DIMMs"), len(c.Drives), plural(len(c.Drives), "drive", "drives"), len(c.Platforms), plural(len(c.Platforms), "platform", "platforms"))
			}
			return joinErrors(failed)
		},
	}
}
