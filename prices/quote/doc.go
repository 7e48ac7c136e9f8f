// Package quote turns a vendor quote or procurement spreadsheet (.xlsx or
// .csv) into a price catalog: it finds the header and the part number,
// description, quantity and unit price columns, reads amounts written in
// any of the usual number styles and currencies, recognises DIMMs and
// drives from their descriptions, and fills the figures a quote never
// states (drive latency, IOPS, often endurance) from class defaults in the
// embedded catalogs, saying so in the output. Reading (ReadXLSX, ReadCSV)
// is separate from interpreting (Import), so tests can build tables in
// memory. Every row it does not import is reported with the reason.
package quote
