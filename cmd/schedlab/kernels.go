package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"schedlab/host"
	"schedlab/lab"
	"schedlab/vm"
	"schedlab/workload"
)

func kernelsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kernels [list | fetch NAME...]",
		Short: "Real kernels for measure --kernel: Debian's packaged kernels, fetched into a cache",
		Long: `Named kernels are Debian's cloud-flavoured images (linux-image-cloud-amd64)
of a suite, downloaded with apt into the user's cache directory and
extracted there (never installed). Suites other than the machine's own are
reached through a private apt sources file derived from the machine's (the
same archive, another suite) with private lists; the machine's apt
configuration is neither used nor changed. The path of any bzImage/vmlinuz
works wherever a NAME does.`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return listKernels() },
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the named kernels: version, scheduler, cached or not",
		Args:  args(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, _ []string) error { return listKernels() },
	}
	var missing bool
	fetch := &cobra.Command{
		Use:   "fetch NAME...",
		Short: "Download and extract named kernels (the newest of their suite) into the cache",
		Args:  args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			for _, name := range a {
				if missing {
					if k, err := vm.Cached(name); err == nil {
						fmt.Fprintf(os.Stderr, "schedlab: %s is cached (Linux %s)\n", name, k.Release)
						continue
					}
				}
				if _, err := vm.Fetch(name, os.Stderr); err != nil {
					return kernelError(err)
				}
			}
			return nil
		},
	}
	fetch.Flags().BoolVar(&missing, "missing", false, "fetch only kernels not in the cache yet (else the newest of the suite replaces a cached older one)")
	cmd.AddCommand(list, fetch)
	return cmd
}

func listKernels() error {
	dir, err := vm.CacheDir()
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "NAME\tSCHEDULER\tRELEASE\tCACHED\n")
	for _, e := range vm.List() {
		cached := "no"
		if e.Kernel != nil {
			cached = fmt.Sprintf("Linux %s (%s %s)", e.Kernel.Release, e.Kernel.Package, e.Kernel.Version)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", e.Name, e.Sched, e.About, cached)
	}
	w.Flush()
	fmt.Printf("\ncache: %s\n", dir)
	return nil
}

// kernelError makes what a user can fix an input error (exit status 2).
func kernelError(err error) error {
	var ie *vm.InputError
	var nf *vm.NotFetchedError
	if errors.As(err, &ie) || errors.As(err, &nf) {
		return &lab.InputError{Err: err}
	}
	return err
}

// vmFlags are measure's options of a run in a virtual machine.
type vmFlags struct {
	kernel, warmup, console string
	accel                   string
	features                string
	set                     []string
	vcpus, memory           int
	makeJobs                int
}

// add adds the flags; withSet false leaves --set to the command (validate
// has its own, which reaches the guest for a kernel tunable).
func (v *vmFlags) add(cmd *cobra.Command, withSet bool) {
	f := cmd.Flags()
	f.StringVar(&v.kernel, "kernel", "", "run in a VM with this kernel: a name of schedlab kernels list, or the path of a bzImage/vmlinuz")
	f.IntVar(&v.vcpus, "vcpus", 1, "the VM's CPUs (with --kernel)")
	f.IntVar(&v.memory, "memory", 1024, "the VM's memory in MB (with --kernel)")
	f.StringVar(&v.accel, "accel", "tcg", "with --kernel: QEMU's accelerator, tcg (emulated, guest time counted in instructions with -icount: runs repeat whatever the machine's load, but vCPUs take turns), tcg-mt (emulated, a host thread per vCPU, real time: as noisy as the machine) or kvm (real time, as fast and as noisy as the host)")
	f.StringVar(&v.features, "features", "", "with --kernel: sched features to set in the guest kernel, in its sched_features syntax: `LIST` such as NO_START_DEBIT")
	if withSet {
		f.StringArrayVar(&v.set, "set", nil, "with --kernel: set a guest kernel tunable by the simulator's name, `NAME=VALUE` such as sched_min_granularity_ns=750000 (repeatable)")
	}
	f.StringVar(&v.console, "console", "", "copy the VM's console to `FILE` (with --kernel)")
	f.IntVar(&v.makeJobs, "make", 0, "with --kernel: a real make -j`N` of gcc -O2 compiles runs beside the workload in the guest, in its cgroup, through every run (the machine's make, gcc and binutils go into the initramfs)")
	f.StringVar(&v.warmup, "warmup", "1s", "a discarded run of the same workload before the measured one, in the VM (the first run after boot is much slower); 0 for none")
}

type vmRun struct {
	vm.Options
	timeout time.Duration // the default --timeout of a VM run
}

// hostOnly refuses the VM's own flags on a host run.
func (v *vmFlags) hostOnly(cmd *cobra.Command) error {
	if v.features != "" || len(v.set) > 0 {
		return &lab.InputError{Err: errors.New("--features and --set apply to runs in a VM (--kernel): this host's kernel is not changed")}
	}
	for _, name := range []string{"vcpus", "memory", "console", "warmup", "accel", "make"} {
		if cmd.Flags().Changed(name) {
			return &lab.InputError{Err: fmt.Errorf("--%s applies to runs in a VM (--kernel)", name)}
		}
	}
	return nil
}

// options resolves the kernel and the workload's text for the guest,
// which parses the same file.
func (v *vmFlags) options(arg string, params []string, o host.Options, runs int) (vmRun, error) {
	var r vmRun
	k, err := vm.Resolve(v.kernel)
	if err != nil {
		return r, kernelError(err)
	}
	if v.vcpus < 1 || v.vcpus > 64 {
		return r, &lab.InputError{Err: fmt.Errorf("--vcpus %d: 1 to 64", v.vcpus)}
	}
	if v.memory < 128 {
		return r, &lab.InputError{Err: fmt.Errorf("--memory %d: at least 128 MB", v.memory)}
	}
	warm, err := lab.ParseDuration(v.warmup)
	if v.warmup == "0" {
		warm, err = 0, nil
	}
	if err != nil {
		return r, &lab.InputError{Err: fmt.Errorf("--warmup: %w", err)}
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		p, perr := parseParams(params)
		if perr != nil {
			return r, perr
		}
		if data, err = workload.Scenario(arg, p); err != nil {
			return r, &lab.InputError{Err: err}
		}
	}
	r.Options = vm.Options{Kernel: k, VCPUs: v.vcpus, MemoryMB: v.memory, Name: o.Spec.Name, Workload: data,
		Duration: o.Duration, Seed: o.Seed, CPUs: o.CPUs, BufferKB: o.BufferKB, Limits: o.Limits, Warmup: warm, Log: os.Stderr, Accel: v.accel, MakeJobs: v.makeJobs}
	if v.features != "" {
		r.Features = strings.Split(v.features, ",")
	}
	for _, kv := range v.set {
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" || val == "" {
			return r, &lab.InputError{Err: fmt.Errorf("--set %q: want NAME=VALUE", kv)}
		}
		r.Set = append(r.Set, [2]string{strings.TrimSpace(k), strings.TrimSpace(val)})
	}
	if v.console != "" {
		f, err := os.Create(v.console)
		if err != nil {
			return r, &lab.InputError{Err: fmt.Errorf("--console: %w", err)}
		}
		r.Console = f // closed at exit
	}
	if err := vm.Check(&r.Options); err != nil {
		return r, kernelError(err)
	}
	// Emulated, a busy guest second takes several seconds of wall time.
	guest := time.Duration(max(runs, 1))*o.Duration + warm
	r.timeout = 3*time.Minute + 20*guest
	if v.makeJobs > 0 {
		// A guest compiling all the time advances far slower still.
		r.timeout = 3*time.Minute + 100*guest
	}
	return r, nil
}
