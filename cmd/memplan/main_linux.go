package main

import (
	"github.com/memplan/memplan/measure/host"
	"github.com/memplan/memplan/measure/host/emulate"
	"github.com/memplan/memplan/measure/probe"
	"github.com/memplan/memplan/measure/profile"
	"github.com/spf13/cobra"
)

// The probe and the profiler change the host through measure/host, which
// speaks to Linux (swap, zram, cgroups); main_other.go stands in elsewhere.

type hostFunc = func() host.Host

func osHost() hostFunc { return func() host.Host { return host.NewOSHost() } }

func serveEmulatorIfChild() { emulate.ServeIfChild() }

// helpers: the profile's launcher (which checks it is in its cgroup, then
// execs the command) and the probe's workload.
var helpers = []func() (bool, int){profile.LauncherMain, probe.WorkloadMain}

func hostCommands(d *deps) []*cobra.Command {
	return []*cobra.Command{newProbeCommand(d), newProfileCommand(d)}
}
