// Package fleet owns what memplan does across many hosts: the stamp a probe
// or profile writes into its factor file (labels, version, parameters), the
// merge of factor files from hosts of one hardware class into one file
// whose bands are prediction intervals for one more host (which files form
// a class and may be pooled, the statistics and the outliers; the pooling
// itself is factors.MergeHosts), the check of a fleet run's results
// directory, and the Ansible, Slurm and LSF files that run the probe on a
// fleet. Nothing here prints; cmd/memplan does.
package fleet
