package workload

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"schedlab/uapi"
	"schedlab/workload/jsonc"
)

// Error is a problem in a workload file, located by file, line and column.
type Error struct {
	File string
	Pos  jsonc.Pos
	Msg  string
}

func (e *Error) Error() string {
	if e.Pos.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%s: %s", e.File, e.Pos, e.Msg)
}

// eventPrefixes are rt-app's (HEAD) event prefixes: a key that starts with
// one of them is an event, whatever follows.
var eventPrefixes = []string{"lock", "unlock", "wait", "signal", "broad", "sync", "sleep", "runtime", "run",
	"timer", "suspend", "resume", "memrun", "mem", "iorun", "yield", "barrier", "fork", "sem_post", "sem_wait"}

// supportedEvents are the events schedlab runs: all of rt-app's.
const supportedEvents = "run, runtime, sleep, timer, fork, yield, suspend, resume, lock, unlock, wait, signal, broad, sync, barrier, mem, iorun, memrun, sem_post, sem_wait, latency_end"

// extLatencyEnd is the prefix of schedlab's one extension event. It starts
// with no rt-app event prefix, so rt-app takes it for an unknown property
// and ignores it.
const extLatencyEnd = "latency_end"

// eventKey classifies a key as eventType does, and also recognises the
// extension event ("latency_end", "latency_end1", …).
func eventKey(key string) string {
	if t := eventType(key); t != "" {
		return t
	}
	if strings.HasPrefix(key, extLatencyEnd) {
		return extLatencyEnd
	}
	return ""
}

// eventType classifies an event key by rt-app's prefix order (run… and
// sleep… first, so "runtime0" is runtime and "running" is run). The empty
// string means the key is not an event.
func eventType(key string) string {
	isEvent := false
	for _, p := range eventPrefixes {
		if strings.HasPrefix(key, p) {
			isEvent = true
			break
		}
	}
	if !isEvent {
		return ""
	}
	order := []string{"sleep", "runtime", "run", "memrun", "mem", "iorun", "lock", "unlock", "signal", "broad",
		"wait", "sync", "barrier", "timer", "resume", "suspend", "yield", "fork", "sem_post", "sem_wait"}
	for _, p := range order {
		if strings.HasPrefix(key, p) {
			return p
		}
	}
	return ""
}

// rt-app properties of a thread or phase that schedlab accepts but does
// not model, and why (a warning says it). The legacy period and deadline
// are SCHED_DEADLINE's old spelling of dl-period and dl-deadline.
var ignoredThreadKeys = map[string]string{
	"period": "rt-app's legacy SCHED_DEADLINE period, and the task is not a deadline task", "deadline": "rt-app's legacy SCHED_DEADLINE deadline, and the task is not a deadline task",
	"util_min": "uclamp steers CPU frequency and capacity, which the simulator does not model", "util_max": "uclamp steers CPU frequency and capacity, which the simulator does not model",
	"nodes_membind": "the simulator has no NUMA nodes",
}

type parser struct {
	file    string
	opts    ReadOptions
	spec    *Spec
	timers  map[string]int
	forks   []forkRef
	resumes []forkRef
	// suspends are suspend events with a name, resolved once all tasks
	// are read: a thread's own name, or a rendezvous.
	suspends []forkRef
	// instances is the instance count of the task being read.
	instances int
	groups    map[string]uint64
	// events and threads count what the file asks for so far, against
	// MaxEvents and MaxThreads.
	events, threads int
	// prios are the priority keys read, resolved once the policies are
	// known (default_policy may follow the tasks); taskPos is where each
	// task is defined.
	prios   []prioRef
	taskPos map[*Task]jsonc.Pos
}

// prioRef is one "priority" key: a nice value or a real-time priority,
// depending on its task's policy.
type prioRef struct {
	props  *Props
	task   *Task // set once the task is read
	pos    jsonc.Pos
	where  string
	thread bool
}

// forkRef is a fork event whose target is resolved once all tasks are read.
type forkRef struct {
	ph   *Phase
	idx  int
	name string
	pos  jsonc.Pos
	def  int // for a suspend: the index of the task it is in
}

func (p *parser) errf(pos jsonc.Pos, format string, args ...any) error {
	return &Error{File: p.file, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ReadOptions change how a file is read.
type ReadOptions struct {
	// Workgen reads the file as rt-app's workgen script prepares it for
	// rt-app: repeated keys of an object are renamed (run, run1, run2, …)
	// and so all kept, where json-c, and so rt-app, keeps one (the last
	// value, at the first key's place). rt-app's own examples that repeat
	// keys (browser, video, tutorial example5) are written for workgen.
	Workgen bool
}

// Parse reads an rt-app workload. file names the source in error messages.
func Parse(file string, data []byte) (*Spec, error) { return ParseWith(file, data, ReadOptions{}) }

// ParseWith is Parse with options.
func ParseWith(file string, data []byte, opts ReadOptions) (*Spec, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("%d bytes: a workload file is at most %d bytes (%d MiB)", len(data), MaxFileSize, MaxFileSize>>20)}
	}
	root, err := jsonc.Parse(data)
	if err != nil {
		if se, ok := err.(*jsonc.SyntaxError); ok {
			return nil, &Error{File: file, Pos: se.Pos, Msg: "malformed JSON: " + se.Msg}
		}
		return nil, &Error{File: file, Msg: err.Error()}
	}
	p := &parser{file: file, opts: opts, spec: &Spec{Name: file, Global: DefaultGlobal()}, timers: map[string]int{}, groups: map[string]uint64{}}
	if err := p.file0(root); err != nil {
		return nil, err
	}
	return p.spec, nil
}

func (p *parser) members(v *jsonc.Value, where string) []jsonc.Member {
	if p.opts.Workgen {
		ms, renamed := v.Workgen()
		if len(renamed) > 0 {
			var r []string
			for _, k := range renamed {
				r = append(r, k[0]+" → "+k[1])
			}
			p.spec.Warnings = append(p.spec.Warnings, fmt.Sprintf("%s:%s: repeated keys in %s renamed as workgen does: %s", p.file, v.Pos, where, strings.Join(r, ", ")))
		}
		return ms
	}
	ms, dups := v.Collapse()
	for _, d := range dups {
		p.spec.Warnings = append(p.spec.Warnings, fmt.Sprintf("%s:%s: key %q repeats in %s; as in rt-app the last value is used at the first key's place (name repeated events run0, run1, ..., or read the file as workgen does, --workgen)", p.file, v.Pos, d, where))
	}
	return ms
}

func (p *parser) file0(root *jsonc.Value) error {
	if root.Kind != jsonc.Object {
		return p.errf(root.Pos, "a workload is a JSON object with \"tasks\", not a %s", root.Kind)
	}
	var tasks *jsonc.Value
	for _, m := range p.members(root, "the file") {
		switch m.Key {
		case "global":
			if err := p.global(m.Value); err != nil {
				return err
			}
		case "tasks":
			tasks = m.Value
		case "resources", "description", "rendered_from":
		default:
			return p.errf(m.KeyPos, "unknown top-level key %q (valid: global, tasks, resources, description, rendered_from)", m.Key)
		}
	}
	if tasks == nil {
		return p.errf(root.Pos, "no \"tasks\" object")
	}
	if tasks.Kind != jsonc.Object {
		return p.errf(tasks.Pos, "\"tasks\" must be an object of task definitions, not a %s", tasks.Kind)
	}
	for _, m := range p.members(tasks, "\"tasks\"") {
		if err := p.task(m); err != nil {
			return err
		}
	}
	if len(p.spec.Tasks) == 0 {
		return p.errf(tasks.Pos, "\"tasks\" is empty")
	}
	for _, f := range p.forks {
		found := false
		for i, t := range p.spec.Tasks {
			if t.Name == f.name {
				f.ph.Events[f.idx].Fork, found = i, true
			}
		}
		if !found {
			return p.errf(f.pos, "fork of undefined task %q (defined: %s)", f.name, p.taskNames())
		}
	}
	// A suspend whose value names another thread, or none, waits on that
	// rendezvous.
	for _, r := range p.suspends {
		if p.threadDef(r.name) != r.def {
			r.ph.Events[r.idx].Cond = resIndex(&p.spec.Conds, r.name)
		}
	}
	for _, r := range p.resumes {
		ev := &r.ph.Events[r.idx]
		ev.TargetDef = p.threadDef(r.name)
		for i, c := range p.spec.Conds {
			if c == r.name {
				ev.Cond = i
			}
		}
		if ev.TargetDef < 0 && ev.Cond < 0 {
			return p.errf(r.pos, "resume of %q, which names no task and no suspend's rendezvous (defined: %s; a task with several instances also has the threads NAME-0, NAME-1, …)", r.name, p.taskNames())
		}
	}
	p.buildGroups()
	return p.resolvePolicies()
}

// resolvePolicies gives each task what its policy makes of rt-app's
// priority and dl-runtime keys: for SCHED_OTHER, SCHED_BATCH and
// SCHED_IDLE the nice value and the custom slice, for SCHED_FIFO and
// SCHED_RR the real-time priority, for SCHED_DEADLINE the reservation.
func (p *parser) resolvePolicies() error {
	policy := func(t *Task) uapi.Policy {
		if t.Props.Policy != nil {
			return *t.Props.Policy
		}
		return p.spec.DefaultPolicy
	}
	for _, r := range p.prios {
		pol := policy(r.task)
		n := *r.props.Nice
		switch {
		case pol.RealTime() && !r.thread:
			return p.errf(r.pos, "%s: a phase's priority on a %v task (a change of real-time priority) is not simulated yet; set it on the task", r.where, pol)
		case pol.RealTime():
			if n < uapi.MinRTPrio || n > uapi.MaxRTPrio {
				return p.errf(r.pos, "%s: priority of a %v task (its real-time priority) must be an integer in [%d, %d]", r.where, pol, uapi.MinRTPrio, uapi.MaxRTPrio)
			}
			r.props.RTPrio, r.props.Nice = n, nil
		case pol == uapi.SchedDeadline:
			return p.errf(r.pos, "%s: a SCHED_DEADLINE task has no priority (its dl-runtime, dl-period and dl-deadline order it)", r.where)
		case n < uapi.MinNice || n > uapi.MaxNice:
			return p.errf(r.pos, "%s: priority (the nice value) must be an integer in [-20, 19]", r.where)
		}
	}
	for _, t := range p.spec.Tasks {
		pol := policy(t)
		where := fmt.Sprintf("task %q", t.Name)
		switch {
		case pol.RealTime():
			if t.Props.RTPrio == 0 {
				t.Props.RTPrio = defaultRTPrio
			}
			t.Props.Slice = 0 // rt-app hands dl-runtime to no real-time task
		case pol == uapi.SchedDeadline:
			dl := &t.Props.DL
			dl.Runtime, t.Props.Slice = t.Props.Slice, 0
			if dl.Runtime == 0 {
				return p.errf(p.taskPos[t], "%s: a SCHED_DEADLINE task needs dl-runtime (microseconds)", where)
			}
			if dl.Period == 0 {
				dl.Period = dl.Runtime
			}
			if dl.Deadline == 0 {
				dl.Deadline = dl.Period
			}
			// sched_setattr's own check (__checkparam_dl).
			if dl.Runtime > dl.Deadline || dl.Deadline > dl.Period {
				return p.errf(p.taskPos[t], "%s: SCHED_DEADLINE needs dl-runtime <= dl-deadline <= dl-period, got %d, %d, %d µs", where, dl.Runtime/1000, dl.Deadline/1000, dl.Period/1000)
			}
		default:
			t.Props.DL = Deadline{} // dl-period and dl-deadline mean nothing here
			if t.Props.Slice > maxSlice {
				return p.errf(p.taskPos[t], "%s: dl-runtime of a %v task (its custom slice) must be at most %d µs", where, pol, maxSlice/1000)
			}
		}
	}
	return nil
}

// defaultRTPrio is rt-app's priority of a real-time task that sets none.
const defaultRTPrio = 10

// maxSlice bounds a fair task's custom slice: 1 s.
const maxSlice int64 = 1e9

// threadDef returns the task definition a thread name belongs to: a task of
// that name, or the task whose instance NAME-i it is; −1 if none.
func (p *parser) threadDef(name string) int {
	for i, t := range p.spec.Tasks {
		if t.Name == name {
			return i
		}
	}
	for i, t := range p.spec.Tasks {
		rest, ok := strings.CutPrefix(name, t.Name+"-")
		if !ok || t.Instances < 2 || rest == "" || (len(rest) > 1 && rest[0] == '0') {
			continue
		}
		n := 0
		for _, c := range rest {
			if c < '0' || c > '9' || n > t.Instances {
				n = -1
				break
			}
			n = n*10 + int(c-'0')
		}
		if n >= 0 && n < t.Instances {
			return i
		}
	}
	return -1
}

func (p *parser) taskNames() string {
	var n []string
	for _, t := range p.spec.Tasks {
		n = append(n, t.Name)
	}
	return strings.Join(n, ", ")
}

func (p *parser) global(v *jsonc.Value) error {
	if v.Kind != jsonc.Object {
		return p.errf(v.Pos, "\"global\" must be an object, not a %s", v.Kind)
	}
	for _, m := range p.members(v, "\"global\"") {
		switch m.Key {
		case "duration":
			f, ok := m.Value.Float()
			if !ok {
				return p.errf(m.Value.Pos, "global.duration must be a number of seconds, not a %s", m.Value.Kind)
			}
			switch {
			case f == -1:
				p.spec.Duration = 0
			case f <= 0 || math.IsInf(f, 0) || f > 1e6:
				return p.errf(m.Value.Pos, "global.duration %s is not a positive number of seconds up to 1e6 (or -1: until every task ends)", m.Value.Num)
			case int64(f*1e9) == 0:
				// 0 would mean "none set": the run would last the default
				// 10 s instead of the fraction of a ns written.
				return p.errf(m.Value.Pos, "global.duration %s is shorter than a nanosecond", m.Value.Num)
			default:
				p.spec.Duration = int64(f * 1e9)
			}
		case "default_policy":
			pol, err := p.policy(m.Value)
			if err != nil {
				return err
			}
			p.spec.DefaultPolicy = pol
		case "taskgroups":
			if err := p.taskgroups(m.Value); err != nil {
				return err
			}
		default:
			ok, err := p.globalExtra(m)
			if err != nil {
				return err
			}
			if !ok {
				return p.errf(m.KeyPos, "unknown key %q in \"global\" (valid: %s)", m.Key, globalKeyList())
			}
		}
	}
	return nil
}

// taskgroups is the extension global.taskgroups: {"/path": {"shares": N}}.
func (p *parser) taskgroups(v *jsonc.Value) error {
	if v.Kind != jsonc.Object {
		return p.errf(v.Pos, "global.taskgroups must be an object {\"/path\": {\"shares\": N}}")
	}
	for _, m := range p.members(v, "global.taskgroups") {
		if err := checkGroupPath(m.Key); err != nil {
			return p.errf(m.KeyPos, "%v", err)
		}
		if m.Value.Kind != jsonc.Object {
			return p.errf(m.Value.Pos, "task group %q must be an object {\"shares\": N}", m.Key)
		}
		shares := uint64(1024)
		for _, g := range m.Value.Members {
			if g.Key != "shares" {
				return p.errf(g.KeyPos, "unknown key %q in task group %q (valid: shares)", g.Key, m.Key)
			}
			n, ok := g.Value.Int()
			if !ok || n < 2 || n > 262144 {
				return p.errf(g.Value.Pos, "shares of %q must be an integer in [2, 262144] (cpu.shares)", m.Key)
			}
			shares = uint64(n)
		}
		p.addGroup(m.Key)
		p.groups[m.Key] = shares
	}
	return nil
}

// addGroup registers a path and its ancestors with the default shares.
func (p *parser) addGroup(path string) {
	for i := 1; i <= len(path); i++ {
		if i == len(path) || path[i] == '/' {
			if _, ok := p.groups[path[:i]]; !ok {
				p.groups[path[:i]] = 1024
			}
		}
	}
}

func (p *parser) buildGroups() {
	paths := make([]string, 0, len(p.groups))
	for g := range p.groups {
		paths = append(paths, g)
	}
	// Lexical order puts every parent before its children.
	sort.Strings(paths)
	for _, g := range paths {
		parent := ""
		if i := strings.LastIndexByte(g, '/'); i > 0 {
			parent = g[:i]
		}
		p.spec.Groups = append(p.spec.Groups, &Group{Path: g, Parent: parent, Shares: p.groups[g]})
	}
}

func (p *parser) policy(v *jsonc.Value) (uapi.Policy, error) {
	if v.Kind != jsonc.String {
		return 0, p.errf(v.Pos, "a policy must be a string such as \"SCHED_OTHER\"")
	}
	// A SCHED_DEADLINE task is its dl-runtime, dl-period and
	// dl-deadline; the same dl-runtime on a fair task is its custom slice.
	pol, ok := uapi.ParsePolicy(v.Str)
	if !ok {
		return 0, p.errf(v.Pos, "unknown policy %q (valid: SCHED_OTHER, SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE)", v.Str)
	}
	return pol, nil
}

func (p *parser) task(m jsonc.Member) error {
	name := m.Key
	v := m.Value
	if v.Kind != jsonc.Object {
		return p.errf(v.Pos, "task %q must be an object, not a %s", name, v.Kind)
	}
	t := &Task{Name: name, Instances: 1, Loop: -1}
	where := fmt.Sprintf("task %q", name)
	if p.taskPos == nil {
		p.taskPos = map[*Task]jsonc.Pos{}
	}
	p.taskPos[t] = v.Pos
	firstPrio := len(p.prios)
	defer func() {
		for i := firstPrio; i < len(p.prios); i++ {
			p.prios[i].task = t
		}
	}()
	var phases *jsonc.Value
	var loop *jsonc.Value
	instPos := v.Pos
	direct := &Phase{Name: name, Loop: 1}
	ms := p.members(v, where)
	// A barrier counts its users from the instances of the tasks that
	// use it, wherever "instance" stands.
	for _, km := range ms {
		if n, ok := km.Value.Int(); km.Key == "instance" && ok && n >= 0 && n <= MaxInstances {
			t.Instances = int(n)
		}
	}
	p.instances = t.Instances
	for _, km := range ms {
		switch km.Key {
		case "instance":
			n, ok := km.Value.Int()
			if !ok || n < 0 || n > MaxInstances {
				return p.errf(km.Value.Pos, "%s: instance must be an integer from 0 to %d (0: a template for fork)", where, MaxInstances)
			}
			t.Instances, instPos = int(n), km.Value.Pos
		case "delay":
			ns, ok := microsToNS(km.Value)
			if !ok {
				return p.errf(km.Value.Pos, "%s: delay must be %s", where, usRange)
			}
			t.Delay = ns
		case "loop":
			loop = km.Value
		case "process":
			if km.Value.Kind != jsonc.Bool {
				return p.errf(km.Value.Pos, "%s: process must be true or false", where)
			}
			t.Process = km.Value.Bool
		case "phases":
			phases = km.Value
		default:
			ok, err := p.prop(km, &t.Props, where, true)
			if err != nil {
				return err
			}
			if ok || p.ignoredKey(km, where) {
				continue
			}
			if eventKey(km.Key) == "" {
				return p.errf(km.KeyPos, "%s: unknown key %q (valid: instance, delay, loop, phases, process, policy, priority, cpus, taskgroup, uid, dl-runtime, %s, and events %s)",
					where, km.Key, strings.Join(sortedKeyList(ignoredThreadKeys), ", "), supportedEvents)
			}
			if phases != nil {
				return p.errf(km.KeyPos, "%s: event %q next to \"phases\": put it inside a phase", where, km.Key)
			}
			if err := p.event(km, direct, where); err != nil {
				return err
			}
		}
	}
	// The engine creates every initial thread before the first event:
	// their number, not the file's size, is what a short file can blow up.
	if p.threads += t.Instances; p.threads > MaxThreads {
		return p.errf(instPos, "%s: the tasks so far start %d threads: a workload starts at most %d (the sum of \"instance\")", where, p.threads, MaxThreads)
	}
	if loop != nil {
		n, ok := loopCount(loop)
		if !ok {
			return p.errf(loop.Pos, "%s: loop must be %s", where, loopRange)
		}
		t.Loop = n
	}
	if phases != nil {
		if len(direct.Events) > 0 {
			return p.errf(phases.Pos, "%s: has both events and \"phases\"", where)
		}
		if err := p.phases(phases, t, where); err != nil {
			return err
		}
	} else {
		if len(direct.Events) == 0 {
			return p.errf(v.Pos, "%s has no events (supported: %s)", where, supportedEvents)
		}
		// rt-app HEAD: without phases, "loop" counts repetitions of the
		// event list, and no loop means forever.
		t.Phases = []*Phase{direct}
	}
	if t.Props.TaskGroup != nil {
		p.addGroup(*t.Props.TaskGroup)
	}
	for _, ph := range t.Phases {
		if ph.Props.TaskGroup != nil {
			p.addGroup(*ph.Props.TaskGroup)
		}
	}
	p.spec.Tasks = append(p.spec.Tasks, t)
	return nil
}

func (p *parser) phases(v *jsonc.Value, t *Task, where string) error {
	if v.Kind != jsonc.Object {
		return p.errf(v.Pos, "%s: \"phases\" must be an object of phases", where)
	}
	for _, m := range p.members(v, where+" phases") {
		pw := fmt.Sprintf("%s phase %q", where, m.Key)
		if m.Value.Kind != jsonc.Object {
			return p.errf(m.Value.Pos, "%s must be an object", pw)
		}
		ph := &Phase{Name: m.Key, Loop: 1}
		for _, km := range p.members(m.Value, pw) {
			if km.Key == "loop" {
				n, ok := loopCount(km.Value)
				if !ok {
					return p.errf(km.Value.Pos, "%s: loop must be %s", pw, loopRange)
				}
				ph.Loop = n
				continue
			}
			ok, err := p.prop(km, &ph.Props, pw, false)
			if err != nil {
				return err
			}
			if ok || p.ignoredKey(km, pw) {
				continue
			}
			if eventKey(km.Key) == "" {
				return p.errf(km.KeyPos, "%s: unknown key %q (valid: loop, policy, priority, cpus, taskgroup, dl-runtime, %s, and events %s)",
					pw, km.Key, strings.Join(sortedKeyList(ignoredThreadKeys), ", "), supportedEvents)
			}
			if err := p.event(km, ph, pw); err != nil {
				return err
			}
		}
		if len(ph.Events) == 0 {
			return p.errf(m.Value.Pos, "%s has no events (supported: %s)", pw, supportedEvents)
		}
		t.Phases = append(t.Phases, ph)
	}
	if len(t.Phases) == 0 {
		return p.errf(v.Pos, "%s: \"phases\" is empty", where)
	}
	return nil
}

// prop parses a scheduling property; ok is false if the key is not one.
// A phase may set each of them but uid (an extension of the task), as
// rt-app applies them when the phase begins.
func (p *parser) prop(m jsonc.Member, props *Props, where string, thread bool) (bool, error) {
	switch m.Key {
	case "uid":
		if !thread {
			return false, p.errf(m.KeyPos, "%s: %q can only be set on the task, not in a phase", where, m.Key)
		}
	case "policy", "cpus", "taskgroup", "dl-runtime", "dl-period", "dl-deadline", "priority":
	default:
		return false, nil
	}
	v := m.Value
	switch m.Key {
	case "policy":
		pol, err := p.policy(v)
		if err != nil {
			return false, err
		}
		props.Policy = &pol
	case "priority":
		// A nice value or a real-time priority: which, and its range,
		// the task's policy says (resolvePolicies).
		n, ok := v.Int()
		if !ok || n < uapi.MinNice || n > uapi.MaxRTPrio {
			return false, p.errf(v.Pos, "%s: priority must be an integer: a nice value in [-20, 19], or a real-time priority in [1, 99] for SCHED_FIFO and SCHED_RR", where)
		}
		nice := int(n)
		props.Nice = &nice
		p.prios = append(p.prios, prioRef{props: props, pos: v.Pos, where: where, thread: thread})
	case "cpus":
		if v.Kind != jsonc.Array || len(v.Elems) == 0 {
			return false, p.errf(v.Pos, "%s: cpus must be a non-empty array of CPU numbers", where)
		}
		if len(v.Elems) > MaxCPUList {
			return false, p.errf(v.Pos, "%s: cpus lists %d CPUs: at most %d", where, len(v.Elems), MaxCPUList)
		}
		for _, e := range v.Elems {
			n, ok := e.Int()
			if !ok || n < 0 || n > 1<<16 {
				return false, p.errf(e.Pos, "%s: cpus must list CPU numbers >= 0", where)
			}
			props.CPUs = append(props.CPUs, int(n))
		}
	case "taskgroup":
		if v.Kind != jsonc.String {
			return false, p.errf(v.Pos, "%s: taskgroup must be a path string like \"/a/b\"", where)
		}
		if v.Str != "" {
			if err := checkGroupPath(v.Str); err != nil {
				return false, p.errf(v.Pos, "%s: %v", where, err)
			}
			s := v.Str
			props.TaskGroup = &s
		}
	case "uid":
		n, ok := v.Int()
		if !ok || n < 0 || n > math.MaxInt32 {
			return false, p.errf(v.Pos, "%s: uid must be a non-negative integer", where)
		}
		uid := int(n)
		props.UID = &uid
	case "dl-runtime", "dl-period", "dl-deadline":
		// On a SCHED_OTHER task rt-app HEAD passes dl-runtime as
		// sched_attr.sched_runtime: the EEVDF custom slice (6.12+); on
		// a SCHED_DEADLINE task it is the runtime of its reservation
		// (resolvePolicies). dl-period and dl-deadline mean something
		// for SCHED_DEADLINE only.
		n, ok := v.Int()
		if !ok || n <= 0 || n > MaxNS/1000 {
			return false, p.errf(v.Pos, "%s: %s must be a positive integer of microseconds (dl-runtime: a SCHED_DEADLINE task's runtime, or a fair task's custom slice)", where, m.Key)
		}
		switch m.Key {
		case "dl-runtime":
			props.Slice = n * 1000
		case "dl-period":
			props.DL.Period = n * 1000
		default:
			props.DL.Deadline = n * 1000
		}
	}
	return true, nil
}

func (p *parser) event(m jsonc.Member, ph *Phase, where string) error {
	if p.events++; p.events > MaxEvents {
		return p.errf(m.KeyPos, "%s: event %q is the file's %dth: a workload has at most %d events (the bound keeps the memory reading it takes to a few hundred MB)", where, m.Key, p.events, MaxEvents)
	}
	typ := eventKey(m.Key)
	ev := Event{Key: m.Key, Cond: -1}
	v := m.Value
	if m.Bare {
		p.warnf(m.KeyPos, "%s: key %q has no value (json-c, and so rt-app, refuses this; read as %q: \"\")", where, m.Key, m.Key)
	}
	switch typ {
	case "run", "runtime", "sleep":
		d, err := p.duration(v, where, m.Key)
		if err != nil {
			return err
		}
		ev.Dur = d
		ev.Kind = map[string]EventKind{"run": Run, "runtime": Runtime, "sleep": Sleep}[typ]
	case "timer":
		if err := p.timer(v, &ev, where); err != nil {
			return err
		}
	case "fork":
		if v.Kind != jsonc.String {
			return p.errf(v.Pos, "%s: %s must name a task to fork", where, m.Key)
		}
		ev.Kind = Fork
	case "yield":
		ev.Kind = Yield
	case "suspend":
		// rt-app HEAD waits on a condition named after the thread and
		// ignores the value; rt-app 1.0 (Debian's) waits on the condition
		// the value names, which its examples use as a rendezvous. A
		// value other than the thread's own name is such a rendezvous.
		ev.Kind = Suspend
		if v.Kind == jsonc.String && v.Str != "" {
			p.suspends = append(p.suspends, forkRef{ph: ph, idx: len(ph.Events), name: v.Str, pos: v.Pos, def: len(p.spec.Tasks)})
		}
	case "resume":
		if v.Kind != jsonc.String || v.Str == "" {
			return p.errf(v.Pos, "%s: %s must name the thread to resume", where, m.Key)
		}
		ev.Kind, ev.Target = Resume, v.Str
	case extLatencyEnd:
		ev.Kind = LatencyEnd
	default:
		if err := p.syncEvent(typ, m, &ev, where, p.instances); err != nil {
			return err
		}
	}
	ph.Events = append(ph.Events, ev)
	switch typ {
	case "fork":
		p.forks = append(p.forks, forkRef{ph: ph, idx: len(ph.Events) - 1, name: v.Str, pos: v.Pos})
	case "resume":
		p.resumes = append(p.resumes, forkRef{ph: ph, idx: len(ph.Events) - 1, name: v.Str, pos: v.Pos})
	}
	return nil
}

// duration reads microseconds, or the extension {"dist": ...} object.
func (p *parser) duration(v *jsonc.Value, where, key string) (Duration, error) {
	if v.Kind == jsonc.Number {
		ns, ok := microsToNS(v)
		if !ok {
			return Duration{}, p.errf(v.Pos, "%s: %s must be %s, or a distribution {\"dist\": ...}", where, key, usRange)
		}
		return Duration{Fixed: ns}, nil
	}
	if v.Kind != jsonc.Object {
		return Duration{}, p.errf(v.Pos, "%s: %s must be microseconds or a distribution {\"dist\": \"lognormal\"|\"exponential\"|\"uniform\", ...}", where, key)
	}
	var d Duration
	us := func(name string) (int64, error) {
		x := v.Get(name)
		if x == nil {
			return 0, p.errf(v.Pos, "%s: %s: distribution needs %q", where, key, name)
		}
		ns, ok := microsToNS(x)
		if !ok {
			return 0, p.errf(x.Pos, "%s: %s: %q must be %s", where, key, name, usRange)
		}
		return ns, nil
	}
	dist := v.Get("dist")
	if dist == nil || dist.Kind != jsonc.String {
		return d, p.errf(v.Pos, "%s: %s: a distribution needs \"dist\": \"lognormal\", \"exponential\" or \"uniform\"", where, key)
	}
	var err error
	allowed := map[string]bool{"dist": true}
	switch dist.Str {
	case "lognormal":
		d.Dist = LogNormal
		allowed["median"], allowed["sigma"] = true, true
		if d.Median, err = us("median"); err != nil {
			return d, err
		}
		s := v.Get("sigma")
		f, ok := 0.0, false
		if s != nil {
			f, ok = s.Float()
		}
		if !ok || f < 0 || f > 10 {
			return d, p.errf(v.Pos, "%s: %s: lognormal needs \"sigma\" in [0, 10]", where, key)
		}
		d.Sigma = f
	case "exponential":
		d.Dist = Exponential
		allowed["mean"] = true
		if d.Mean, err = us("mean"); err != nil {
			return d, err
		}
	case "uniform":
		d.Dist = Uniform
		allowed["min"], allowed["max"] = true, true
		if d.Min, err = us("min"); err != nil {
			return d, err
		}
		if d.Max, err = us("max"); err != nil {
			return d, err
		}
		if d.Max < d.Min {
			return d, p.errf(v.Pos, "%s: %s: uniform needs min <= max", where, key)
		}
	default:
		return d, p.errf(dist.Pos, "%s: %s: unknown distribution %q (valid: lognormal, exponential, uniform)", where, key, dist.Str)
	}
	for _, m := range v.Members {
		if !allowed[m.Key] {
			return d, p.errf(m.KeyPos, "%s: %s: unknown key %q for a %s distribution (valid: %s)", where, key, m.Key, dist.Str, sortedKeys(allowed))
		}
	}
	return d, nil
}

func (p *parser) timer(v *jsonc.Value, ev *Event, where string) error {
	if v.Kind != jsonc.Object {
		return p.errf(v.Pos, "%s: timer must be an object {\"ref\": name, \"period\": µs, \"mode\": \"relative\"|\"absolute\"}", where)
	}
	ref, mode, notify := "", "relative", ""
	var period Duration
	var nominal int64
	for _, m := range v.Members {
		switch m.Key {
		case "ref":
			if m.Value.Kind != jsonc.String || m.Value.Str == "" {
				return p.errf(m.Value.Pos, "%s: timer ref must be a non-empty string", where)
			}
			ref = m.Value.Str
		case "period":
			if m.Value.Kind == jsonc.Object {
				d, err := p.duration(m.Value, where, "timer period")
				if err != nil {
					return err
				}
				period, nominal = d, d.Nominal()
				if nominal <= 0 {
					return p.errf(m.Value.Pos, "%s: a random timer period needs a positive median, mean or max", where)
				}
				break
			}
			ns, ok := microsToNS(m.Value)
			if !ok || ns == 0 {
				return p.errf(m.Value.Pos, "%s: timer period must be a positive integer of microseconds up to %d (10⁷ s), or a distribution {\"dist\": ...}", where, int64(MaxMicros))
			}
			period, nominal = Duration{Fixed: ns}, ns
		case "mode":
			if m.Value.Kind != jsonc.String || (m.Value.Str != "relative" && m.Value.Str != "absolute") {
				return p.errf(m.Value.Pos, "%s: timer mode must be \"relative\" or \"absolute\"", where)
			}
			mode = m.Value.Str
		case "notify":
			if m.Value.Kind != jsonc.String || (m.Value.Str != "signal" && m.Value.Str != "thread" && m.Value.Str != "input") {
				return p.errf(m.Value.Pos, "%s: timer notify must be \"signal\" (POSIX timer, SIGEV_SIGNAL), \"thread\" (SIGEV_THREAD) or \"input\" (an input device)", where)
			}
			notify = m.Value.Str
		default:
			return p.errf(m.KeyPos, "%s: unknown timer key %q (valid: ref, period, mode, notify)", where, m.Key)
		}
	}
	if ref == "" || nominal == 0 {
		return p.errf(v.Pos, "%s: timer needs \"ref\" and \"period\"", where)
	}
	i, ok := p.timers[ref]
	if !ok {
		i = len(p.spec.Timers)
		p.timers[ref] = i
		p.spec.Timers = append(p.spec.Timers, &TimerRes{Name: ref, Absolute: mode == "absolute",
			PerThread: strings.HasPrefix(ref, "unique"), Notify: notify})
	} else if r := p.spec.Timers[i]; r.Notify != notify || r.Absolute != (mode == "absolute") {
		return p.errf(v.Pos, "%s: timer %q is used with another mode or notify elsewhere", where, ref)
	}
	ev.Kind, ev.Timer, ev.Period, ev.PeriodDur = Timer, i, nominal, period
	return nil
}

func sortedKeys[V any](m map[string]V) string { return strings.Join(sortedKeyList(m), ", ") }

func sortedKeyList[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ignoredKey accepts, with a warning that says why, a property rt-app has
// and the simulator does not model.
func (p *parser) ignoredKey(m jsonc.Member, where string) bool {
	why, ok := ignoredThreadKeys[m.Key]
	if ok {
		p.warnf(m.KeyPos, "%s: %s is ignored: %s", where, m.Key, why)
	}
	return ok
}
