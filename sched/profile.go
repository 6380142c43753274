package sched

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// Feature is one sched feature bit (kernel/sched_features.h).
type Feature struct {
	Name    string
	Default bool
	Doc     string // one line
	// SMPOnly features have no effect on one CPU; they are listed so the
	// feature set matches the kernel's.
	SMPOnly bool
	// Reconstruction names the reconstruction ("R1") when the feature's
	// behaviour is ours, not known from a source; empty when verified.
	Reconstruction string
	// Unknown, if set, says why the feature cannot be simulated: it is
	// listed (its name is known) but turning it on is refused.
	Unknown string
	// WhatIf features are schedlab's own, in no kernel of the profile's
	// generation (an unmerged patch ported to a later class): a run's
	// report names one, and the tunables named after it, only when it is
	// on, so that the profile's reports stay the kernel's.
	WhatIf bool
}

// WhatIfOff lists the names of the what-if features that are off in c
// and of their tunables (named after the feature, as Reconstructions
// reads them): what a run's report leaves out.
func (c *Config) WhatIfOff() []string {
	var out []string
	for _, f := range c.Profile.Features {
		if !f.WhatIf || c.Features[f.Name] {
			continue
		}
		out = append(out, f.Name)
		prefix := strings.ToLower(f.Name) + "_"
		for _, t := range c.Profile.Tunables {
			if strings.HasPrefix(t.Name, prefix) {
				out = append(out, t.Name)
			}
		}
	}
	return out
}

// Tunable is one numeric knob: a sysctl (spelled as in /proc/sys/kernel), a
// profile option or an engine parameter.
type Tunable struct {
	Name    string
	Default int64
	Unit    string // "ns", "Hz", "" …
	Doc     string
	Min     int64
	Max     int64
	// Choices, if set, are the only valid values (e.g. arch 32|64).
	Choices []int64
	// Derived tunables are computed from others, or from the Machine,
	// unless set explicitly.
	Derived bool
	// Scaled tunables are multiplied by the CPU-count factor
	// (sched_tunable_scaling) unless set explicitly.
	Scaled bool
	// Reconstruction marks parameters of reconstructed features.
	Reconstruction string
}

// Profile is a kernel generation: a class constructor and its knobs.
type Profile struct {
	Name     string // e.g. "cfs-2.6.35"
	Doc      string
	Features []Feature
	Tunables []Tunable
	// New builds the class for one run. cfg holds every feature and
	// tunable of this profile, resolved (defaults applied, scaled for
	// NCPU, derived ones computed by Resolve), and the Machine.
	New func(cfg *Config) (Class, error)
	// Resolve, if set, fills derived and scaled tunables: it is given the
	// config with defaults and user values, and the set of names the user
	// set explicitly.
	Resolve func(cfg *Config, userSet map[string]bool) error
	// ReschedBefore2637 is a core-kernel fact of the generation: its
	// TIF_NEED_RESCHED rules are those before 2.6.37's f26f9aff6aa, which
	// changed two. Fork copies the parent's flag into the child
	// (dup_task_struct; since 2.6.37 it clears it), so a child forked
	// while a preemption of its parent is pending reschedules as soon as
	// it first runs. And schedule() clears the flag before put_prev_task
	// and the pick (since 2.6.37 after pick_next_task, as 6.1's and
	// 6.12's __schedule still do), so a reschedule asked for during the
	// put or the pick (an update_curr's, a wakeup while idle_balance has
	// dropped the lock) stays set and the picked task reschedules at
	// once; since 2.6.37 it is dropped.
	ReschedBefore2637 bool
}

// Machine is what the engine fixes for a run and a class may model.
type Machine struct {
	NCPU int
	// TickNS is the engine's tick period, 10^9/HZ ns (the kernel's
	// TICK_NSEC). 0 resolves a configuration for no engine in particular:
	// a tunable that models the tick then keeps its default.
	TickNS int64
}

// Config is the resolved configuration of one run of a profile, for one
// machine.
type Config struct {
	Profile *Profile
	Machine
	Features map[string]bool
	Tunables map[string]int64
}

// Feature reports whether the named feature is on. It panics on a name the
// profile does not have: that is a bug in the class, not user input.
func (c *Config) Feature(name string) bool {
	v, ok := c.Features[name]
	if !ok {
		panic("sched: profile " + c.Profile.Name + " has no feature " + name)
	}
	return v
}

// Tunable returns the named tunable's value; it panics on an unknown name.
func (c *Config) Tunable(name string) int64 {
	v, ok := c.Tunables[name]
	if !ok {
		panic("sched: profile " + c.Profile.Name + " has no tunable " + name)
	}
	return v
}

var profiles = map[string]*Profile{}

// Register makes a profile available by name. It is called from the init
// function of the package that implements the class.
func Register(p *Profile) {
	if _, dup := profiles[p.Name]; dup {
		panic("sched: profile registered twice: " + p.Name)
	}
	profiles[p.Name] = p
}

// Profiles returns the registered profile names, sorted.
func Profiles() []string {
	names := make([]string, 0, len(profiles))
	for n := range profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns a registered profile or an error listing the valid names.
func Lookup(name string) (*Profile, error) {
	if p, ok := profiles[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("unknown policy %q (valid: %s)", name, strings.Join(Profiles(), ", "))
}

// ParseFeatures parses the kernel's sched_features syntax: a comma-separated
// list of NAME (turn on) and NO_NAME (turn off). Names match whole — 2.6.35
// matched by prefix, so writing INTERACTIVE also hit INTERACTIVE_FORK_EXPEDITED;
// that was a bug (fixed in 2.6.37) and is not reproduced.
func (p *Profile) ParseFeatures(list string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, on := item, true
		if f := p.feature(name); f == nil && strings.HasPrefix(name, "NO_") {
			name, on = name[3:], false
		}
		f := p.feature(name)
		if f == nil {
			return nil, fmt.Errorf("unknown feature %q for policy %s (valid: %s; prefix NO_ to turn one off)",
				item, p.Name, strings.Join(p.featureNames(), ", "))
		}
		if on && f.Unknown != "" {
			return nil, fmt.Errorf("feature %s of policy %s cannot be simulated: %s", name, p.Name, f.Unknown)
		}
		out[name] = on
	}
	return out, nil
}

// Feature returns the profile's feature of that name, or nil.
func (p *Profile) Feature(name string) *Feature { return p.feature(name) }

func (p *Profile) feature(name string) *Feature {
	for i := range p.Features {
		if p.Features[i].Name == name {
			return &p.Features[i]
		}
	}
	return nil
}

func (p *Profile) featureNames() []string {
	names := make([]string, len(p.Features))
	for i, f := range p.Features {
		names[i] = f.Name
	}
	return names
}

// Tunable returns the profile's tunable of that name, or else the
// registered higher classes' (sched_rt_runtime_us…), or nil.
func (p *Profile) Tunable(name string) *Tunable {
	for i := range p.Tunables {
		if p.Tunables[i].Name == name {
			return &p.Tunables[i]
		}
	}
	t, _ := ClassTunable(name)
	return t
}

// TunableNames lists the profile's tunables in declaration order, then the
// higher classes'.
func (p *Profile) TunableNames() []string {
	names := make([]string, 0, len(p.Tunables))
	for _, t := range p.Tunables {
		names = append(names, t.Name)
	}
	for _, t := range ClassTunables() {
		names = append(names, t.Name)
	}
	return names
}

// ParseValue reads a --set value for tunable t and checks it.
func (t *Tunable) ParseValue(s string) (int64, error) {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("tunable %s: %q is not an integer", t.Name, s)
	}
	return v, t.Check(v)
}

// Check says whether v is a valid value of t: one of its Choices, or
// inside [Min, Max].
func (t *Tunable) Check(v int64) error {
	if len(t.Choices) > 0 {
		for _, c := range t.Choices {
			if v == c {
				return nil
			}
		}
		return fmt.Errorf("tunable %s: %d is not one of %v", t.Name, v, t.Choices)
	}
	if v < t.Min || v > t.Max {
		return fmt.Errorf("tunable %s: %d is outside [%d, %d]", t.Name, v, t.Min, t.Max)
	}
	return nil
}

// NewConfig resolves a configuration for ncpu CPUs and no particular tick
// (NewConfigFor with Machine{NCPU: ncpu}).
func (p *Profile) NewConfig(ncpu int, features map[string]bool, set map[string]int64) (*Config, error) {
	return p.NewConfigFor(Machine{NCPU: ncpu}, features, set)
}

// NewConfigFor resolves a run's configuration on machine m: feature
// defaults overridden by features, tunable defaults overridden by set
// (already-parsed values), the profile's derivations applied for m.
func (p *Profile) NewConfigFor(m Machine, features map[string]bool, set map[string]int64) (*Config, error) {
	cfg := &Config{Profile: p, Machine: m, Features: map[string]bool{}, Tunables: map[string]int64{}}
	for _, f := range p.Features {
		cfg.Features[f.Name] = f.Default
	}
	for name, on := range features {
		f := p.feature(name)
		if f == nil {
			return nil, fmt.Errorf("unknown feature %q for policy %s (valid: %s)", name, p.Name, strings.Join(p.featureNames(), ", "))
		}
		if on && f.Unknown != "" {
			return nil, fmt.Errorf("feature %s of policy %s cannot be simulated: %s", name, p.Name, f.Unknown)
		}
		cfg.Features[name] = on
	}
	for _, t := range p.Tunables {
		cfg.Tunables[t.Name] = t.Default
	}
	for _, t := range ClassTunables() {
		cfg.Tunables[t.Name] = t.Default
	}
	userSet := map[string]bool{}
	for name, v := range set {
		if p.Tunable(name) == nil {
			return nil, fmt.Errorf("unknown tunable %q for policy %s (valid: %s)", name, p.Name, strings.Join(p.TunableNames(), ", "))
		}
		cfg.Tunables[name] = v
		userSet[name] = true
	}
	if p.Resolve != nil {
		if err := p.Resolve(cfg, userSet); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// Reconstructions lists the reconstructed features that are on, as
// "NAME@ID" followed by the values of their parameters (the tunables named
// after the feature, e.g. start_nice_delta for START_NICE), sorted: every
// report that uses a reconstruction prints this.
func (c *Config) Reconstructions() []string {
	var out []string
	for _, f := range c.Profile.Features {
		if !c.Features[f.Name] || f.Reconstruction == "" {
			continue
		}
		id := f.Reconstruction
		var params []string
		prefix := strings.ToLower(f.Name) + "_"
		for _, t := range c.Profile.Tunables {
			// A feature with two readings names the one chosen in
			// its ID (START_NICE@R2), not among its parameters.
			if t.Name == prefix+"reading" {
				id = fmt.Sprintf("R%d", c.Tunables[t.Name])
				continue
			}
			if strings.HasPrefix(t.Name, prefix) {
				params = append(params, fmt.Sprintf("%s=%d", t.Name, c.Tunables[t.Name]))
			}
		}
		s := f.Name + "@" + id
		if len(params) > 0 {
			s += " (" + strings.Join(params, " ") + ")"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Values of sched_tunable_scaling.
const (
	ScalingNone   = 0
	ScalingLog    = 1
	ScalingLinear = 2
)

// ScaleFactor is the kernel's boot-time multiplier of the CPU-scaled
// tunables (update_sysctl, get_update_sysctl_factor) for 2.6.26 on: with
// ncpu capped at 8, 1 (none), ncpu (linear) or 1+log2(ncpu) (log, the
// default). More CPUs mean a longer latency target.
func ScaleFactor(mode int64, ncpu int) int64 {
	n := int64(min(max(ncpu, 1), 8))
	switch mode {
	case ScalingNone:
		return 1
	case ScalingLinear:
		return n
	}
	return 1 + int64(bits.Len64(uint64(n))-1)
}

// ScaleTunables sets every Scaled tunable the user left alone to its
// normalized default times factor.
func (c *Config) ScaleTunables(userSet map[string]bool, factor int64) {
	for _, t := range c.Profile.Tunables {
		if t.Scaled && !userSet[t.Name] {
			c.Tunables[t.Name] = t.Default * factor
		}
	}
}
