// Package units owns the typed quantities memplan reads from hand-edited
// files: byte sizes ("48GiB"), durations ("6h", "75us"), money with a
// currency ("25000 RUB"), ratios ("50%") and dates. Each is parsed once, at
// the edge, and carried as a type afterwards so no other package re-parses a
// string or guesses a unit.
package units
