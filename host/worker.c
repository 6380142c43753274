// The host worker: runs a compiled workload program as real threads and
// processes (see worker.h for why this half is C). program.go writes the
// program; this file reads it, and executes each thread's phases and events
// as rt-app would, with schedlab's extensions (docs/workload.md):
//
//   run       busy until the thread's CPU clock has advanced by the amount
//   runtime   busy until the wall clock has advanced by the amount
//   sleep     clock_nanosleep, relative
//   timer     rt-app's timer: clock_nanosleep(TIMER_ABSTIME) on a grid that
//             starts at the thread's start; "notify" timers are POSIX timers
//             (timer_create): "signal" and "input" signal the waiting thread
//             (SIGEV_THREAD_ID), "thread" is glibc's SIGEV_THREAD
//   fork      a thread (pthread_create) or, for a definition marked
//             "process", a process (fork + exec of this binary)
//   suspend/resume  a binary semaphore per thread, a futex in shared memory
//                   so that it works across processes; a suspend on a
//                   name (rt-app 1.0's rendezvous) waits on that condition,
//                   which a resume of the name broadcasts
//   lock/unlock, wait/signal/broad/sync, barrier, sem_post/sem_wait
//             process-shared pthread mutexes (PTHREAD_PRIO_INHERIT with
//             global.pi_enabled), conditions and POSIX semaphores in shared
//             memory, used as rt-app uses them; a barrier is rt-app's own
//             (a mutex, a condition and a count)
//   mem       memset of the thread's buffer of mem_buffer_size bytes
//   iorun     write() of the buffer to global.io_device, as rt-app does
//
// Timer-latency samples are trace_marker writes in schedlab's mark format
// (trace/mark.go), one write per sample at the first instruction the woken
// code runs: "callback_start timer=T seq=N expected_ns=E".

#define _GNU_SOURCE
#include "worker.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6 // include/uapi/linux/sched.h; older C libraries lack it
#endif

#define SL_SLOTS 8192
#define SL_MIN_PERIOD 1000 // ns: a random period is never shorter (sim/timers.go)

typedef struct {
	enum sl_dist dist;
	int64_t fixed, median, mean, min, max;
	double sigma;
} sl_dur;

typedef struct {
	int has_nice, nice;
	int policy; // or SL_UNSET, as are group and uid
	int group;
	int uid;
	int64_t slice;
	int rtprio;                       // SCHED_FIFO, SCHED_RR: sched_priority
	int64_t dl_runtime, dl_deadline, dl_period; // SCHED_DEADLINE, ns
	int ncpus;
	int cpus[SL_MAXCPU];
} sl_props;

typedef struct {
	enum sl_event_kind kind;
	sl_dur dur;
	int timer;
	sl_dur period;
	int fork;
	int target_def;
	char target[16];
	int res, mutex, cond; // sync objects (workload.Event's Res, Mutex, Cond)
	int64_t bytes;
} sl_event;

typedef struct {
	int loop;
	sl_props props;
	int nev;
	sl_event *ev;
} sl_phase;

typedef struct {
	char name[64];
	int instances;
	int64_t delay;
	int loop;
	int process;
	sl_props props;
	int nph;
	sl_phase *ph;
} sl_task;

typedef struct {
	int absolute, perthread;
	enum sl_notify notify;
} sl_timer_res;

typedef struct {
	uint64_t seed;
	int default_policy;
	int ntimers;
	sl_timer_res timers[SL_MAXTIMERS];
	int ngroups;
	char **groups; // each group's "tasks" file
	int pi, nmutex, ncond, nbarrier, nsem;
	int barrier_users[SL_MAXSYNC];
	int64_t membuf;
	char *iodev;
	int cumulative_slack;
	int64_t ns_per_loop; // an integer global.calibration, else 0
	char *logdir, *logbase; // rt-app's per-thread logs ("" for none)
	int ntasks;
	sl_task *tasks;
} sl_prog;

// A thread's slot in shared memory: what resume needs to find and wake it,
// and the input token it carries.
typedef struct {
	int32_t state; // 0 free, 1 live, 2 exited
	int32_t def;
	char comm[16];
	uint32_t sem; // futex word of the binary semaphore
	int32_t tok_set, tok_timer;
	int64_t tok_seq, tok_expected;
} sl_slot;

// An rt-app timer shared by the threads that name it.
typedef struct {
	int32_t lock;
	int32_t started;
	int64_t next, seq;
} sl_rt_timer;

// rt-app's barrier: users still to arrive minus one, under its mutex.
typedef struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int32_t waiting;
} sl_barrier;

typedef struct {
	int64_t t0;
	double ns_per_loop; // calibrated by the root (busy_cpu)
	pthread_mutex_t mutex[SL_MAXSYNC];
	pthread_cond_t cond[SL_MAXSYNC];
	pthread_mutex_t cond_lock[SL_MAXSYNC]; // a rendezvous condition's mutex
	sl_barrier barrier[SL_MAXSYNC];
	sem_t sem[SL_MAXSYNC];
	uint32_t next_slot;
	int32_t slot_lock;
	sl_rt_timer rt[SL_MAXTIMERS];
	sl_slot slots[SL_SLOTS];
} sl_shm;

static sl_prog prog;
static sl_shm *shm;
// live counts this process's workload threads; the main thread ends the
// process when it drops to zero (a thread cannot pthread_exit out of a
// constructor).
static uint32_t live;
static int prog_fd = -1, marker_fd = -1, shm_fd = -1;

static void die(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "schedlab host worker: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	_exit(SL_EXIT_SETUP);
}

static int64_t now_ns(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct timespec to_ts(int64_t ns) {
	struct timespec ts = {ns / 1000000000, ns % 1000000000};
	return ts;
}

static pid_t gettid_(void) { return (pid_t)syscall(SYS_gettid); }

// ---- reading the program ----

// The program text is whitespace-separated tokens; strings are hex.
static char *cur;

static char *token(void) {
	while (*cur == ' ' || *cur == '\n' || *cur == '\t')
		cur++;
	if (!*cur)
		die("program text ends early");
	char *t = cur;
	while (*cur && *cur != ' ' && *cur != '\n' && *cur != '\t')
		cur++;
	if (*cur)
		*cur++ = 0;
	return t;
}

static int64_t num(void) {
	char *t = token(), *end;
	errno = 0;
	long long v = strtoll(t, &end, 10);
	if (errno || *end)
		die("bad number %s in program", t);
	return v;
}

static void expect(const char *word) {
	char *t = token();
	if (strcmp(t, word))
		die("program: want %s, have %s", word, t);
}

// hexstr decodes a hex token into a new string ("-" is empty).
static char *hexstr(void) {
	char *t = token();
	size_t n = strcmp(t, "-") ? strlen(t) / 2 : 0;
	char *s = calloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (sscanf(t + 2 * i, "%2x", &v) != 1)
			die("bad hex string %s in program", t);
		s[i] = (char)v;
	}
	return s;
}

// code reads a code of worker.h, refusing any the program's writer did not
// mean: a code out of step with program.go must stop the worker, not run
// the workload as something else.
static int code(int first, int last, const char *what) {
	int64_t v = num();
	if (v < first || v > last)
		die("program: %s %lld", what, (long long)v);
	return (int)v;
}

// loop_count reads a loop: -1 (forever) or 1 to INT_MAX. The workload
// language refuses any other (workload.MaxLoop); one that reached here
// anyway would run another number of times than the simulator runs it
// (a cast of 4294967296 is 0), so it stops the worker instead.
static int loop_count(void) {
	int64_t v = num();
	if (v != -1 && (v < 1 || v > INT_MAX))
		die("program: loop %lld", (long long)v);
	return (int)v;
}

static void read_dur(sl_dur *d) {
	d->dist = (enum sl_dist)code(SL_DIST_FIXED, SL_DIST_UNIFORM, "distribution");
	d->fixed = num();
	d->median = num();
	d->mean = num();
	d->min = num();
	d->max = num();
	d->sigma = strtod(token(), NULL);
}

static void read_props(sl_props *p) {
	expect("props");
	p->has_nice = (int)num();
	p->nice = (int)num();
	p->policy = (int)num();
	p->group = (int)num();
	p->uid = (int)num();
	p->slice = num();
	p->rtprio = (int)num();
	p->dl_runtime = num();
	p->dl_deadline = num();
	p->dl_period = num();
	p->ncpus = (int)num();
	if (p->ncpus < 0 || p->ncpus > SL_MAXCPU)
		die("program: %d CPUs", p->ncpus);
	for (int i = 0; i < p->ncpus; i++)
		p->cpus[i] = (int)num();
}

static void read_program(int fd) {
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 1 >= cap)
			buf = realloc(buf, cap *= 2);
		ssize_t r = pread(fd, buf + n, cap - n - 1, (off_t)n);
		if (r < 0)
			die("reading the program: %s", strerror(errno));
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	cur = buf;
	expect(SL_PROGRAM_MAGIC);
	if (num() != SL_PROGRAM_VERSION)
		die("program: not version %d", SL_PROGRAM_VERSION);
	expect("seed");
	prog.seed = (uint64_t)num();
	expect("policy");
	prog.default_policy = (int)num();
	expect("timers");
	prog.ntimers = (int)num();
	if (prog.ntimers < 0 || prog.ntimers > SL_MAXTIMERS)
		die("program: %d timers", prog.ntimers);
	for (int i = 0; i < prog.ntimers; i++) {
		prog.timers[i].absolute = (int)num();
		prog.timers[i].perthread = (int)num();
		prog.timers[i].notify = (enum sl_notify)code(SL_NOTIFY_NONE, SL_NOTIFY_INPUT, "notify");
		if ((prog.timers[i].notify == SL_NOTIFY_SIGNAL || prog.timers[i].notify == SL_NOTIFY_INPUT) &&
		    i > SL_MAX_SIGNAL_TIMER)
			die("program: signal timer %d", i);
	}
	expect("groups");
	prog.ngroups = (int)num();
	prog.groups = calloc((size_t)prog.ngroups + 1, sizeof(char *));
	for (int i = 0; i < prog.ngroups; i++)
		prog.groups[i] = hexstr();
	expect("sync");
	prog.pi = (int)num();
	prog.nmutex = (int)num();
	prog.ncond = (int)num();
	prog.nbarrier = (int)num();
	prog.nsem = (int)num();
	if (prog.nmutex < 0 || prog.nmutex > SL_MAXSYNC || prog.ncond < 0 || prog.ncond > SL_MAXSYNC ||
	    prog.nbarrier < 0 || prog.nbarrier > SL_MAXSYNC || prog.nsem < 0 || prog.nsem > SL_MAXSYNC)
		die("program: sync objects %d %d %d %d", prog.nmutex, prog.ncond, prog.nbarrier, prog.nsem);
	expect("users");
	for (int i = 0; i < prog.nbarrier; i++)
		prog.barrier_users[i] = (int)num();
	expect("io");
	prog.membuf = num();
	if (prog.membuf <= 0)
		die("program: mem_buffer_size %lld", (long long)prog.membuf);
	prog.iodev = hexstr();
	expect("log");
	prog.cumulative_slack = (int)num();
	prog.ns_per_loop = num();
	prog.logdir = hexstr();
	prog.logbase = hexstr();
	expect("tasks");
	prog.ntasks = (int)num();
	prog.tasks = calloc((size_t)prog.ntasks + 1, sizeof(sl_task));
	for (int i = 0; i < prog.ntasks; i++) {
		sl_task *t = &prog.tasks[i];
		expect("task");
		char *name = hexstr();
		snprintf(t->name, sizeof t->name, "%s", name);
		free(name);
		t->instances = (int)num();
		t->delay = num();
		t->loop = loop_count();
		t->process = (int)num();
		read_props(&t->props);
		t->nph = (int)num();
		t->ph = calloc((size_t)t->nph + 1, sizeof(sl_phase));
		for (int j = 0; j < t->nph; j++) {
			sl_phase *ph = &t->ph[j];
			expect("phase");
			ph->loop = loop_count();
			read_props(&ph->props);
			ph->nev = (int)num();
			ph->ev = calloc((size_t)ph->nev + 1, sizeof(sl_event));
			for (int k = 0; k < ph->nev; k++) {
				sl_event *e = &ph->ev[k];
				expect("event");
				e->kind = (enum sl_event_kind)code(SL_EV_RUN, SL_EV_SEM_WAIT, "event kind");
				read_dur(&e->dur);
				e->timer = (int)num();
				read_dur(&e->period);
				e->fork = (int)num();
				e->target_def = (int)num();
				char *target = hexstr();
				snprintf(e->target, sizeof e->target, "%s", target);
				free(target);
				e->res = (int)num();
				e->mutex = (int)num();
				e->cond = (int)num();
				e->bytes = num();
				int max = e->kind == SL_EV_BARRIER ? prog.nbarrier
				          : e->kind == SL_EV_SEM_POST || e->kind == SL_EV_SEM_WAIT ? prog.nsem
				          : e->kind >= SL_EV_WAIT && e->kind <= SL_EV_SYNC ? prog.ncond
				                                                           : prog.nmutex;
				if (((e->kind >= SL_EV_LOCK && e->kind <= SL_EV_BARRIER) || e->kind >= SL_EV_SEM_POST) &&
				    (e->res < 0 || e->res >= max))
					die("program: sync object %d of %d", e->res, max);
				if ((e->kind == SL_EV_WAIT || e->kind == SL_EV_SYNC) && (e->mutex < 0 || e->mutex >= prog.nmutex))
					die("program: mutex %d of %d", e->mutex, prog.nmutex);
				if (e->cond < -1 || e->cond >= prog.ncond)
					die("program: condition %d of %d", e->cond, prog.ncond);
			}
		}
	}
	expect("end");
}

// ---- small tools ----

static void spin_lock(int32_t *l) {
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}
static void spin_unlock(int32_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

static long futex(uint32_t *w, int op, uint32_t v) {
	return syscall(SYS_futex, w, op, v, NULL, NULL, 0);
}

// xorshift64*: per-thread random durations (the host is not deterministic
// anyway; the seed only makes the draws independent of each other).
static uint64_t rnd(uint64_t *s) {
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}
static double unit(uint64_t *s) { return ((rnd(s) >> 11) + 0.5) / 9007199254740992.0; }

static int64_t draw(const sl_dur *d, uint64_t *s) {
	switch (d->dist) {
	case SL_DIST_FIXED:
		break;
	case SL_DIST_LOGNORMAL: {
		double z = sqrt(-2 * log(unit(s))) * cos(2 * M_PI * unit(s));
		return (int64_t)llround((double)d->median * exp(d->sigma * z));
	}
	case SL_DIST_EXPONENTIAL:
		return (int64_t)llround(-(double)d->mean * log(unit(s)));
	case SL_DIST_UNIFORM:
		return d->min + (int64_t)llround(unit(s) * (double)(d->max - d->min));
	}
	return d->fixed;
}

static void mark(const char *fmt, ...) {
	if (marker_fd < 0)
		return;
	char b[200];
	int n = snprintf(b, sizeof b, "I|%d|", (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	n += vsnprintf(b + n, sizeof b - (size_t)n, fmt, ap);
	va_end(ap);
	if (write(marker_fd, b, (size_t)n) < 0) {
		// A lost mark is a lost sample; the run goes on.
	}
}

static void sleep_until(int64_t t) {
	struct timespec ts = to_ts(t);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

// ---- threads ----

typedef struct {
	int started;
	int64_t next, seq;
} sl_own_timer;

typedef struct {
	int created;
	timer_t id;
	int signo;
	int64_t first, period, seq;
	sigset_t set;
} sl_posix;

typedef struct {
	int def, slot, instance;
	int64_t first;
	uint64_t rng;
	sl_own_timer own[SL_MAXTIMERS];
	sl_posix posix[SL_MAXTIMERS];
	char *membuf; // the buffer mem and iorun write, made at first use
	// rt-app's log of the phase loop in progress (thread_body's ldata),
	// in µs; log_fd is the thread's log, or -1.
	int log_fd;
	int64_t perf, run_us, c_duration, c_period, wu_lat, slack;
} sl_thread;

// The SIGEV_THREAD timer of a helper: glibc passes this to the callback.
typedef struct {
	int id, def;
	int64_t first, period;
	int64_t delivered; // expiries accounted for so far
	timer_t tid;
} sl_cb_timer;

static int claim_slot(int def, const char *comm) {
	spin_lock(&shm->slot_lock);
	int s = -1;
	for (uint32_t i = 0; i < SL_SLOTS; i++) {
		uint32_t j = (shm->next_slot + i) % SL_SLOTS;
		if (shm->slots[j].state != 1) {
			s = (int)j;
			break;
		}
	}
	if (s < 0) {
		spin_unlock(&shm->slot_lock);
		die("more than %d live threads", SL_SLOTS);
	}
	shm->next_slot = (uint32_t)s + 1;
	sl_slot *sl = &shm->slots[s];
	memset(sl, 0, sizeof *sl);
	sl->def = def;
	snprintf(sl->comm, sizeof sl->comm, "%s", comm);
	__atomic_store_n(&sl->state, 1, __ATOMIC_RELEASE);
	spin_unlock(&shm->slot_lock);
	return s;
}

static void write_file(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		fprintf(stderr, "schedlab host worker: %s: %s\n", path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

struct sl_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

static void set_nice(int nice) {
	if (setpriority(PRIO_PROCESS, (id_t)gettid_(), nice) < 0)
		fprintf(stderr, "schedlab host worker: nice %d: %s\n", nice, strerror(errno));
}

// apply_start sets a new thread's properties, in the order that keeps the
// rights to do so: cgroup, policy and nice, affinity, and the uid last.
static void apply_start(const sl_props *p) {
	char b[32];
	if (p->group != SL_UNSET) {
		snprintf(b, sizeof b, "%d", (int)gettid_());
		write_file(prog.groups[p->group], b);
	}
	int policy = p->policy != SL_UNSET ? p->policy : prog.default_policy;
	int nice = p->has_nice ? p->nice : 0;
	if (policy == SCHED_FIFO || policy == SCHED_RR || policy == SCHED_DEADLINE) {
		// A real-time or deadline task that ran as a fair one would
		// measure another workload: the kernel's refusal fails the run
		// (as every line on stderr does), saying why it may refuse.
		struct sl_sched_attr a = {.size = sizeof a, .policy = (uint32_t)policy, .priority = (uint32_t)p->rtprio,
					  .runtime = (uint64_t)p->dl_runtime, .deadline = (uint64_t)p->dl_deadline,
					  .period = (uint64_t)p->dl_period};
		if (syscall(SYS_sched_setattr, 0, &a, 0) < 0) {
			if (policy == SCHED_DEADLINE)
				fprintf(stderr, "schedlab host worker: sched_setattr SCHED_DEADLINE runtime %lld deadline %lld period %lld ns: %s "
						"(needs root; the kernel refuses a reservation beyond the free bandwidth, sched_rt_runtime_us of each "
						"sched_rt_period_us, and a deadline task whose affinity is narrower than its root domain)\n",
					(long long)p->dl_runtime, (long long)p->dl_deadline, (long long)p->dl_period, strerror(errno));
			else
				fprintf(stderr, "schedlab host worker: sched_setattr %s priority %d: %s "
						"(real-time policies need root or CAP_SYS_NICE and an RLIMIT_RTPRIO this high)\n",
					policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_RR", p->rtprio, strerror(errno));
		}
	} else if (policy != SCHED_OTHER || p->slice > 0) {
		struct sl_sched_attr a = {.size = sizeof a, .policy = (uint32_t)policy, .nice = nice, .runtime = (uint64_t)p->slice};
		if (syscall(SYS_sched_setattr, 0, &a, 0) < 0)
			fprintf(stderr, "schedlab host worker: sched_setattr: %s\n", strerror(errno));
	}
	if (policy != SCHED_DEADLINE)
		set_nice(nice);
	if (p->ncpus > 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		for (int i = 0; i < p->ncpus; i++)
			CPU_SET(p->cpus[i], &set);
		if (sched_setaffinity(0, sizeof set, &set) < 0)
			fprintf(stderr, "schedlab host worker: sched_setaffinity: %s\n", strerror(errno));
	}
	// A raw setresuid changes only this thread; glibc's would change all.
	if (p->uid != SL_UNSET && syscall(SYS_setresuid, p->uid, p->uid, p->uid) < 0)
		fprintf(stderr, "schedlab host worker: setresuid %d: %s\n", p->uid, strerror(errno));
}

static void run_thread(int def, int slot, int instance);
static void spawn(int def, int instance);

static void thread_done(void) {
	if (__atomic_sub_fetch(&live, 1, __ATOMIC_ACQ_REL) == 0)
		futex(&live, FUTEX_WAKE_PRIVATE, 1);
}

// wait_threads returns when no workload thread of this process is left.
static void wait_threads(void) {
	uint32_t n;
	while ((n = __atomic_load_n(&live, __ATOMIC_ACQUIRE)) != 0)
		futex(&live, FUTEX_WAIT_PRIVATE, n);
}

static void *thread_main(void *arg) {
	intptr_t v = (intptr_t)arg;
	int instance = (int)((v >> 16) & 0xffff);
	run_thread((int)(v >> 32), (int)(v & 0xffff), instance == 0xffff ? -1 : instance);
	thread_done();
	return NULL;
}

static void comm_of(int def, int instance, char out[16]) {
	const sl_task *t = &prog.tasks[def];
	char b[96];
	if (instance >= 0 && t->instances > 1)
		snprintf(b, sizeof b, "%s-%d", t->name, instance);
	else
		snprintf(b, sizeof b, "%s", t->name);
	// Cut as the kernel cuts a comm (TASK_COMM_LEN 16), as the simulator does.
	size_t n = strnlen(b, 15);
	memcpy(out, b, n);
	out[n] = 0;
}

// spawn creates a thread, or a process for a definition marked "process",
// running definition def. instance is the index of an initial copy, or -1
// for a fork.
static void spawn(int def, int instance) {
	char comm[16];
	comm_of(def, instance, comm);
	int slot = claim_slot(def, comm);
	if (prog.tasks[def].process) {
		char env[160];
		snprintf(env, sizeof env, SL_ENV "=CHILD %d %d %d %d %d %d", prog_fd, marker_fd, shm_fd, def, slot, instance);
		char *envp[] = {env, NULL};
		char *argv[] = {comm, NULL};
		pid_t pid = fork();
		if (pid == 0) {
			execve("/proc/self/exe", argv, envp);
			_exit(SL_EXIT_SETUP);
		}
		if (pid < 0)
			fprintf(stderr, "schedlab host worker: fork: %s\n", strerror(errno));
		return;
	}
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 << 10);
	pthread_t th;
	intptr_t v = ((intptr_t)def << 32) | ((intptr_t)(instance & 0xffff) << 16) | slot;
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
	int err = pthread_create(&th, &a, thread_main, (void *)v);
	if (err)
		thread_done();
	if (err)
		fprintf(stderr, "schedlab host worker: pthread_create: %s\n", strerror(err));
	pthread_attr_destroy(&a);
}

// spin is the busy work: n iterations of arithmetic, no system call.
static void spin(uint64_t n) {
	volatile uint64_t x = 0;
	for (uint64_t i = 0; i < n; i++)
		x += i;
}

// calibrate measures spin's cost in thread CPU time. It keeps the slowest
// of a few trials (with a margin), so that busy_cpu's first pass falls
// short rather than long and a correction finishes it.
static double calibrate(void) {
	double worst = 0;
	for (int k = 0; k < 5; k++) {
		int64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
		spin(1000000);
		double ns = (double)(now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1e6;
		if (ns > worst)
			worst = ns;
	}
	return worst * 1.1;
}

// task_fd is the thread's perf task clock (busy_cpu), opened when the
// thread starts: a thread that changes its uid may no longer open it.
static __thread int task_fd = -1;

static void open_task_clock(void) {
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_hv = 1;
	task_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (task_fd < 0 && (errno == EACCES || errno == EPERM)) {
		// A process forked by a thread that runs as another uid starts as
		// that uid, and with perf_event_paranoid 2 an unprivileged event
		// must leave the kernel out. The busy work is user code, so the
		// count barely changes.
		a.exclude_kernel = 1;
		task_fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (task_fd < 0)
		die("perf_event_open(task clock): %s", strerror(errno));
}

static int64_t task_clock(void) {
	uint64_t v = 0;
	if (read(task_fd, &v, sizeof v) != sizeof v)
		die("reading the task clock: %s", strerror(errno));
	return (int64_t)v;
}

// busy_cpu burns d ns of the thread's CPU time. It must not ask the
// scheduler how much CPU time the thread has had: CLOCK_THREAD_CPUTIME_ID
// runs update_curr (task_sched_runtime), which lets EEVDF end the current
// request at once, so a loop that read it ran turns of exactly the slice
// instead of overrunning to the next tick as CPU-bound code does (and even
// a few reads per run event cut turns short; VALIDATION.md finding A). So
// the work is calibrated loop iterations, and the total is checked against
// the perf task clock, whose read does not enter the scheduler.
static void busy_cpu(int64_t d) {
	int64_t start = task_clock(), left = d;
	while (left > 1000) {
		spin((uint64_t)((double)left / shm->ns_per_loop) + 1);
		left = d - (task_clock() - start);
	}
}

static void busy_wall(int64_t d) {
	int64_t end = now_ns(CLOCK_MONOTONIC) + d;
	while (now_ns(CLOCK_MONOTONIC) < end)
		;
}

static int timer_id(const sl_thread *th, int i) {
	return prog.timers[i].perthread ? 1000 + th->slot * SL_MAXTIMERS + i : i;
}

// rt_timer is rt-app's timer: the grid starts at the thread's start and
// advances one period per use; a thread that is already late does not
// sleep, and in relative mode the grid restarts from now.
// us_round is rt-app's timespec_to_usec: ns to µs, rounded half away.
static int64_t us_round(int64_t ns) { return (int64_t)llround((double)ns / 1000.0); }

static void rt_timer(sl_thread *th, const sl_event *e) {
	const sl_timer_res *r = &prog.timers[e->timer];
	sl_rt_timer *sh = r->perthread ? NULL : &shm->rt[e->timer];
	sl_own_timer *own = &th->own[e->timer];
	int64_t period = e->period.dist == SL_DIST_FIXED ? e->period.fixed : draw(&e->period, &th->rng);
	if (period < SL_MIN_PERIOD && e->period.dist != SL_DIST_FIXED)
		period = SL_MIN_PERIOD;
	int64_t next, seq;
	if (sh)
		spin_lock(&sh->lock);
	int32_t *started = sh ? &sh->started : &own->started;
	int64_t *pnext = sh ? &sh->next : &own->next, *pseq = sh ? &sh->seq : &own->seq;
	if (!*started) {
		*started = 1;
		*pnext = th->first;
	}
	*pnext += period;
	seq = ++*pseq;
	next = *pnext;
	int64_t now = now_ns(CLOCK_MONOTONIC);
	int late = now >= next;
	if (late && !r->absolute)
		*pnext = now;
	if (sh)
		spin_unlock(&sh->lock);
	int id = timer_id(th, e->timer);
	th->c_period += us_round(period);
	th->slack = (prog.cumulative_slack ? th->slack : 0) + us_round(next - now);
	if (late) {
		th->wu_lat = 0; // as rt-app does for a timer already past
		mark("timer_missed timer=%d seq=%lld", id, (long long)seq);
		return;
	}
	sleep_until(next);
	mark("callback_start timer=%d seq=%lld expected_ns=%lld", id, (long long)seq, (long long)next);
	th->wu_lat += us_round(now_ns(CLOCK_MONOTONIC) - next);
}

// posix_wait waits for the signal of a "signal" or "input" POSIX timer
// (SIGEV_THREAD_ID to this thread), arming it on first use with its first
// expiry one period after the thread's start.
static void posix_wait(sl_thread *th, const sl_event *e) {
	sl_posix *p = &th->posix[e->timer];
	const sl_timer_res *r = &prog.timers[e->timer];
	if (!p->created) {
		p->signo = SIGRTMIN + 1 + e->timer;
		sigemptyset(&p->set);
		sigaddset(&p->set, p->signo);
		pthread_sigmask(SIG_BLOCK, &p->set, NULL);
		struct sigevent sev = {0};
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = p->signo;
		sev._sigev_un._tid = gettid_();
		if (timer_create(CLOCK_MONOTONIC, &sev, &p->id) < 0)
			die("timer_create: %s", strerror(errno));
		p->period = e->period.fixed;
		p->first = th->first + p->period;
		int64_t now = now_ns(CLOCK_MONOTONIC);
		while (p->first <= now)
			p->first += p->period;
		struct itimerspec its = {to_ts(p->period), to_ts(p->first)};
		if (timer_settime(p->id, TIMER_ABSTIME, &its, NULL) < 0)
			die("timer_settime: %s", strerror(errno));
		p->created = 1;
	}
	siginfo_t si;
	while (sigwaitinfo(&p->set, &si) < 0)
		;
	// The signal is for the first undelivered expiry; expiries while it was
	// pending are overruns, the missed timer events.
	int64_t seq = ++p->seq, expected = p->first + (seq - 1) * p->period;
	int id = timer_id(th, e->timer);
	for (int i = 0; i < si.si_overrun; i++)
		mark("timer_missed timer=%d seq=%lld", id, (long long)(seq + 1 + i));
	p->seq += si.si_overrun;
	if (r->notify == SL_NOTIFY_INPUT) {
		sl_slot *me = &shm->slots[th->slot];
		me->tok_set = 1, me->tok_timer = id, me->tok_seq = seq, me->tok_expected = expected;
		return;
	}
	mark("callback_start timer=%d seq=%lld expected_ns=%lld", id, (long long)seq, (long long)expected);
}

// sigev_callback is the function glibc runs in a new thread at each expiry
// of a SIGEV_THREAD timer: its first act is the sample's mark.
//
// Which expiry it serves: the signal glibc's helper took was for the first
// expiry not yet served, and expiries while it was pending are overruns
// (missed timer events), merged into it. But glibc passes neither the
// expiry nor the overrun count, and timer_getoverrun reports the count of
// the signal the helper took *last*, which under load may already be the
// next one. So the count is used, but bounded by the clock: no expiry
// served or missed may lie after now. That keeps every sample non-negative
// and the totals right; under heavy load (callbacks more than a period
// late) a sample may be attributed to a neighbouring expiry.
static void sigev_callback(union sigval v) {
	sl_cb_timer *cb = v.sival_ptr;
	int64_t now = now_ns(CLOCK_MONOTONIC);
	int over = timer_getoverrun(cb->tid);
	if (over < 0)
		over = 0;
	int64_t due = (now - cb->first) / cb->period + 1; // expiries up to now
	int64_t old, seq, missed, next;
	do {
		old = __atomic_load_n(&cb->delivered, __ATOMIC_ACQUIRE);
		seq = old + 1 < due ? old + 1 : due;
		missed = due - seq < over ? due - seq : over;
		next = seq + missed > old ? seq + missed : old;
	} while (!__atomic_compare_exchange_n(&cb->delivered, &old, next, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	int64_t expected = cb->first + (seq - 1) * cb->period;
	// The period lets the analysis move the sample to the expiry the
	// kernel's signal names (analyze.SigevNumbering), where the trace has
	// the signals.
	mark("callback_start timer=%d seq=%lld expected_ns=%lld period_ns=%lld", cb->id, (long long)seq, (long long)expected,
	     (long long)cb->period);
	for (int64_t i = 1; i <= missed; i++)
		mark("timer_missed timer=%d seq=%lld", cb->id, (long long)(seq + i));
	char comm[16];
	comm_of(cb->def, -1, comm);
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
	run_thread(cb->def, claim_slot(cb->def, comm), -1);
	thread_done();
}

// sigev_helper is a thread whose program is glibc's SIGEV_THREAD helper:
// timer (notify "thread"), then the helper's own work, then a fork of the
// callback. On the host glibc does all of that itself: this thread only
// creates the timer and waits.
static void sigev_helper(sl_thread *th, const sl_event *e, const sl_phase *ph) {
	int fork = -1;
	for (int i = 0; i < ph->nev; i++)
		if (ph->ev[i].kind == SL_EV_FORK)
			fork = ph->ev[i].fork;
	sl_cb_timer *cb = calloc(1, sizeof *cb);
	cb->id = timer_id(th, e->timer);
	cb->def = fork;
	cb->period = e->period.fixed;
	// The first expiry one period after the thread's start, as
	// posix_wait arms its timer, and past the expiries this thread
	// already missed: armed in the past, the timer would fire at once
	// with them merged into its first signal as overruns, which
	// timer_getoverrun may no longer report when the callback asks (a
	// later signal's count replaces it), and every later callback would
	// then be numbered for an earlier expiry. A thread held between its
	// start and here (on the guest, make's process forks hold it for
	// milliseconds) so arms its grid on the phase it started on.
	cb->first = th->first + cb->period;
	int64_t now = now_ns(CLOCK_MONOTONIC);
	while (cb->first <= now)
		cb->first += cb->period;
	struct sigevent sev = {0};
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = sigev_callback;
	sev.sigev_value.sival_ptr = cb;
	if (timer_create(CLOCK_MONOTONIC, &sev, &cb->tid) < 0)
		die("timer_create SIGEV_THREAD: %s", strerror(errno));
	struct itimerspec its = {to_ts(cb->period), to_ts(cb->first)};
	if (timer_settime(cb->tid, TIMER_ABSTIME, &its, NULL) < 0)
		die("timer_settime: %s", strerror(errno));
	for (;;)
		pause();
}

static void suspend(sl_thread *th, const sl_event *e) {
	if (e->cond >= 0) { // rt-app 1.0: wait on the named condition
		pthread_mutex_lock(&shm->cond_lock[e->cond]);
		pthread_cond_wait(&shm->cond[e->cond], &shm->cond_lock[e->cond]);
		pthread_mutex_unlock(&shm->cond_lock[e->cond]);
		return;
	}
	uint32_t *sem = &shm->slots[th->slot].sem;
	while (!__atomic_exchange_n(sem, 0, __ATOMIC_ACQ_REL))
		futex(sem, FUTEX_WAIT, 0);
}

static void resume(sl_thread *th, const sl_event *e) {
	if (e->cond >= 0) { // and every thread suspended on the name
		pthread_mutex_lock(&shm->cond_lock[e->cond]);
		pthread_cond_broadcast(&shm->cond[e->cond]);
		pthread_mutex_unlock(&shm->cond_lock[e->cond]);
	}
	if (e->target_def < 0)
		return;
	int target = -1;
	for (int pass = 0; pass < 2 && target < 0; pass++)
		for (int i = 0; i < SL_SLOTS; i++) {
			sl_slot *s = &shm->slots[i];
			if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 1)
				continue;
			if (pass == 0 ? strcmp(s->comm, e->target) == 0 : s->def == e->target_def) {
				target = i;
				break;
			}
		}
	if (target < 0)
		return; // its threads have all exited: a no-op, as in the simulator
	sl_slot *me = &shm->slots[th->slot], *t = &shm->slots[target];
	if (me->tok_set) { // an input token travels with the wakeup
		t->tok_timer = me->tok_timer, t->tok_seq = me->tok_seq, t->tok_expected = me->tok_expected;
		__atomic_store_n(&t->tok_set, 1, __ATOMIC_RELEASE);
		me->tok_set = 0;
	}
	__atomic_store_n(&t->sem, 1, __ATOMIC_RELEASE);
	futex(&t->sem, FUTEX_WAKE, 1);
}

static void latency_end(sl_thread *th) {
	sl_slot *me = &shm->slots[th->slot];
	if (!__atomic_load_n(&me->tok_set, __ATOMIC_ACQUIRE))
		return;
	mark("callback_start timer=%d seq=%lld expected_ns=%lld", me->tok_timer, (long long)me->tok_seq,
	     (long long)me->tok_expected);
	me->tok_set = 0;
}

// io_fd is global.io_device, opened by the first iorun of the process as
// rt-app opens it.
static int io_fd = -1;
static pthread_once_t io_once = PTHREAD_ONCE_INIT;
static void open_io(void) {
	io_fd = open(prog.iodev, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	if (io_fd < 0)
		fprintf(stderr, "schedlab host worker: io_device %s: %s\n", prog.iodev, strerror(errno));
}

// sync_event runs the events on sync objects, mem and iorun as rt-app's
// run_event does.
static void sync_event(sl_thread *th, const sl_event *e) {
	switch (e->kind) {
	case SL_EV_LOCK:
		pthread_mutex_lock(&shm->mutex[e->res]);
		break;
	case SL_EV_UNLOCK:
		pthread_mutex_unlock(&shm->mutex[e->res]);
		break;
	case SL_EV_WAIT:
		pthread_cond_wait(&shm->cond[e->res], &shm->mutex[e->mutex]);
		break;
	case SL_EV_SIGNAL:
		pthread_cond_signal(&shm->cond[e->res]);
		break;
	case SL_EV_BROAD:
		pthread_cond_broadcast(&shm->cond[e->res]);
		break;
	case SL_EV_SYNC:
		pthread_cond_signal(&shm->cond[e->res]);
		pthread_cond_wait(&shm->cond[e->res], &shm->mutex[e->mutex]);
		break;
	case SL_EV_BARRIER: {
		sl_barrier *b = &shm->barrier[e->res];
		pthread_mutex_lock(&b->m);
		if (b->waiting == 0) {
			pthread_cond_broadcast(&b->c);
		} else {
			b->waiting--;
			pthread_cond_wait(&b->c, &b->m);
			b->waiting++;
		}
		pthread_mutex_unlock(&b->m);
		break;
	}
	case SL_EV_SEM_POST:
		sem_post(&shm->sem[e->res]);
		break;
	case SL_EV_SEM_WAIT:
		while (sem_wait(&shm->sem[e->res]) < 0 && errno == EINTR)
			;
		break;
	case SL_EV_MEM:
	case SL_EV_IORUN: {
		if (!th->membuf && !(th->membuf = malloc((size_t)prog.membuf)))
			die("mem_buffer_size %lld: out of memory", (long long)prog.membuf);
		if (e->kind == SL_EV_IORUN)
			pthread_once(&io_once, open_io);
		for (int64_t left = e->bytes; left > 0;) {
			size_t n = (size_t)(left < prog.membuf ? left : prog.membuf);
			if (e->kind == SL_EV_MEM) {
				memset(th->membuf, 0, n);
			} else {
				ssize_t w = io_fd < 0 ? -1 : write(io_fd, th->membuf, n);
				if (w <= 0)
					break;
				n = (size_t)w;
			}
			left -= (int64_t)n;
		}
		break;
	}
	default:
		break;
	}
}

// init_sync makes the sync objects, once, in the root before any thread
// starts: process-shared, since a workload's tasks may be processes.
static void init_sync(void) {
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_t pma;
	pthread_mutexattr_init(&pma);
	pthread_mutexattr_setpshared(&pma, PTHREAD_PROCESS_SHARED);
	if (prog.pi)
		pthread_mutexattr_setprotocol(&pma, PTHREAD_PRIO_INHERIT);
	for (int i = 0; i < prog.nmutex; i++)
		pthread_mutex_init(&shm->mutex[i], &pma);
	for (int i = 0; i < prog.ncond; i++) {
		pthread_cond_init(&shm->cond[i], &ca);
		pthread_mutex_init(&shm->cond_lock[i], &ma);
	}
	for (int i = 0; i < prog.nbarrier; i++) {
		pthread_mutex_init(&shm->barrier[i].m, &ma);
		pthread_cond_init(&shm->barrier[i].c, &ca);
		shm->barrier[i].waiting = prog.barrier_users[i] - 1;
	}
	for (int i = 0; i < prog.nsem; i++)
		if (sem_init(&shm->sem[i], 1, 0) < 0)
			die("sem_init: %s", strerror(errno));
	pthread_mutexattr_destroy(&pma);
	pthread_mutexattr_destroy(&ma);
	pthread_condattr_destroy(&ca);
}

static int event(sl_thread *th, const sl_event *e, const sl_phase *ph) {
	switch (e->kind) {
	case SL_EV_RUN:
	case SL_EV_RUNTIME: {
		int64_t d = draw(&e->dur, &th->rng), t0 = now_ns(CLOCK_MONOTONIC);
		if (e->kind == SL_EV_RUN)
			busy_cpu(d);
		else
			busy_wall(d);
		th->run_us += us_round(now_ns(CLOCK_MONOTONIC) - t0);
		th->c_duration += us_round(d);
		// rt-app's perf: µs over its calibrated ns per loop.
		double per = prog.ns_per_loop > 0 ? (double)prog.ns_per_loop : shm->ns_per_loop;
		if (per > 0)
			th->perf += (int64_t)((double)us_round(d) / per);
		break;
	}
	case SL_EV_SLEEP: {
		struct timespec ts = to_ts(draw(&e->dur, &th->rng));
		while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
			;
		break;
	}
	case SL_EV_TIMER:
		switch (prog.timers[e->timer].notify) {
		case SL_NOTIFY_NONE:
			rt_timer(th, e);
			break;
		case SL_NOTIFY_THREAD:
			sigev_helper(th, e, ph);
			break;
		case SL_NOTIFY_SIGNAL:
		case SL_NOTIFY_INPUT:
			posix_wait(th, e);
		}
		break;
	case SL_EV_FORK:
		spawn(e->fork, -1);
		break;
	case SL_EV_YIELD:
		sched_yield();
		break;
	case SL_EV_SUSPEND:
		suspend(th, e);
		break;
	case SL_EV_RESUME:
		resume(th, e);
		break;
	case SL_EV_LATENCY_END:
		latency_end(th);
		break;
	default:
		sync_event(th, e);
	}
	return 0;
}

// run_thread runs definition def in the calling thread: its phases as the
// simulator's Task.next walks them, then the thread ends.
static void run_thread(int def, int slot, int instance) {
	sl_task *t = &prog.tasks[def];
	sl_thread *th = calloc(1, sizeof *th);
	th->def = def, th->slot = slot, th->instance = instance;
	th->rng = prog.seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(slot + 1)) ^ (uint64_t)now_ns(CLOCK_MONOTONIC);
	if (!th->rng)
		th->rng = 1;
	prctl(PR_SET_NAME, shm->slots[slot].comm);
	open_task_clock();
	// The log is opened before apply_start drops the uid, as rt-app opens
	// it before the thread runs.
	th->log_fd = -1;
	if (prog.logdir[0]) {
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s-%s-%d.log", prog.logdir, prog.logbase, t->name, slot);
		th->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (th->log_fd < 0)
			fprintf(stderr, "schedlab host worker: rt-app log %s: %s\n", path, strerror(errno));
		else {
			int pol = t->props.policy != SL_UNSET ? t->props.policy : prog.default_policy;
			const char *names[] = {"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", "SCHED_ISO", "SCHED_IDLE", "SCHED_DEADLINE"};
			dprintf(th->log_fd, "# Policy : %s priority : %d\n", pol >= 0 && pol <= 6 ? names[pol] : "?",
			        t->props.has_nice ? t->props.nice : 0);
			dprintf(th->log_fd, "%s %8s %8s %8s %15s %15s %15s %10s %10s %10s %10s\n", "#idx", "perf", "run", "period",
			        "start", "end", "rel_st", "slack", "c_duration", "c_period", "wu_lat");
		}
	}
	apply_start(&t->props);
	// A phase's "cpus" hold for the phase; one without them has the
	// task's (rt-app's set_thread_affinity), which is what it has now.
	cpu_set_t task_cpus;
	int pinned = 0, group = t->props.group;
	if (sched_getaffinity(0, sizeof task_cpus, &task_cpus) < 0)
		CPU_ZERO(&task_cpus);
	th->first = now_ns(CLOCK_MONOTONIC);
	for (int loops = t->loop; loops != 0; loops -= loops > 0) {
		for (int p = 0; p < t->nph; p++) {
			sl_phase *ph = &t->ph[p];
			if (ph->props.has_nice)
				set_nice(ph->props.nice);
			// A phase's taskgroup holds until another phase names one.
			if (ph->props.group != SL_UNSET && ph->props.group != group) {
				char b[32];
				snprintf(b, sizeof b, "%d", (int)gettid_());
				write_file(prog.groups[ph->props.group], b);
				group = ph->props.group;
			}
			if (ph->props.ncpus > 0 || pinned) {
				cpu_set_t set = task_cpus;
				if (ph->props.ncpus > 0) {
					CPU_ZERO(&set);
					for (int i = 0; i < ph->props.ncpus; i++)
						CPU_SET(ph->props.cpus[i], &set);
				}
				pinned = ph->props.ncpus > 0;
				if (CPU_COUNT(&set) > 0 && sched_setaffinity(0, sizeof set, &set) < 0)
					fprintf(stderr, "schedlab host worker: sched_setaffinity: %s\n", strerror(errno));
			}
			for (int pl = ph->loop; pl != 0; pl -= pl > 0) {
				th->perf = th->run_us = th->c_duration = th->c_period = th->wu_lat = th->slack = 0;
				int64_t start = now_ns(CLOCK_MONOTONIC);
				for (int i = 0; i < ph->nev; i++)
					event(th, &ph->ev[i], ph);
				int64_t end = now_ns(CLOCK_MONOTONIC);
				// One write a line: the run's end kills the workload, and
				// a loop it cuts is not logged (as rt-app's is not).
				if (th->log_fd >= 0)
					dprintf(th->log_fd, "%4d %8lld %8lld %8lld %15lld %15lld %15lld %10lld %10lld %10lld %10lld\n", slot,
					        (long long)th->perf, (long long)th->run_us, (long long)us_round(end - start),
					        (long long)us_round(start), (long long)us_round(end), (long long)us_round(start - shm->t0),
					        (long long)th->slack, (long long)th->c_duration, (long long)th->c_period, (long long)th->wu_lat);
			}
		}
	}
	__atomic_store_n(&shm->slots[slot].state, 2, __ATOMIC_RELEASE);
	close(task_fd);
	task_fd = -1;
	if (th->log_fd >= 0)
		close(th->log_fd);
	free(th->membuf);
	free(th);
}

static void map_shm(int create) {
	if (create) {
		shm_fd = (int)syscall(SYS_memfd_create, "schedlab-shm", 0);
		if (shm_fd < 0 || ftruncate(shm_fd, sizeof(sl_shm)) < 0)
			die("memfd: %s", strerror(errno));
	}
	shm = mmap(NULL, sizeof(sl_shm), PROT_READ | PROT_WRITE, MAP_SHARED, shm_fd, 0);
	if (shm == MAP_FAILED)
		die("mmap: %s", strerror(errno));
}

typedef struct {
	int def, instance;
	int64_t delay;
} sl_start;

static int by_delay(const void *a, const void *b) {
	const sl_start *x = a, *y = b;
	return x->delay < y->delay ? -1 : x->delay > y->delay;
}

// The runner's undo list (run.go's undoList), for the janitor.
static int undo_fd = -1;

// write_str writes s to the file at path; async-signal-safe.
static int write_str(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -1 : 0;
}

// janitor undoes the run when its runner died without doing so (SIGKILL,
// the OOM killer): tracing off at once, in this process, since the
// instance would otherwise record every scheduler event of the machine
// until someone removes it; then, in a child of its own process group
// (which the caller's kill of the workload's group misses), out of the
// workload's cgroups, the cgroups and the instance removed. They can be
// removed only once the workload's processes are gone and have closed the
// instance's files, so each removal is retried for up to 10 s. After
// fork() in a threaded process only async-signal-safe calls are made.
static void janitor(void) {
	if (undo_fd < 0)
		return;
	off_t size = lseek(undo_fd, 0, SEEK_END);
	if (size <= 0)
		return;
	char *list = malloc((size_t)size + 1);
	if (!list || pread(undo_fd, list, (size_t)size, 0) != size)
		return;
	list[size] = 0;
	const char *end = list + size;
	for (const char *p = list; p < end;) {
		const char *verb = p, *path = p + strlen(p) + 1;
		if (path >= end)
			break;
		if (strcmp(verb, SL_UNDO_OFF) == 0)
			write_str(path, "0");
		p = path + strlen(path) + 1;
	}
	pid_t pid = fork();
	if (pid != 0) {
		if (pid > 0)
			setpgid(pid, pid); // before the caller's kill, whichever runs first
		return;
	}
	setpgid(0, 0);
	char self[24];
	int n = 0;
	char digits[24];
	for (pid_t me = getpid(); me > 0; me /= 10)
		digits[n++] = (char)('0' + me % 10);
	for (int i = 0; i < n; i++)
		self[i] = digits[n - 1 - i];
	self[n] = 0;
	for (int fd = 3; fd < 1024; fd++)
		close(fd); // the instance cannot go while a file of it is open
	struct timespec tick = {0, 10 * 1000 * 1000};
	int tries = 1000; // 10 s over all removals
	for (const char *p = list; p < end;) {
		const char *verb = p, *path = p + strlen(p) + 1;
		if (path >= end)
			break;
		if (strcmp(verb, SL_UNDO_LEAVE) == 0)
			write_str(path, self);
		else if (strcmp(verb, SL_UNDO_RMDIR) == 0)
			while (rmdir(path) < 0 && errno != ENOENT && tries-- > 0)
				nanosleep(&tick, NULL);
		p = path + strlen(path) + 1;
	}
	_exit(0);
}

// root is the workload's first process: it starts every initial copy at its
// delay, as rt-app's main thread does, and then leaves the stage.
// watch_runner blocks on the go pipe after the start: it reads end of file
// only when the runner has died without cleaning up (SIGKILL), and then
// stops tracing and ends the whole workload, which would otherwise run on
// unwatched, leaving the janitor to remove what the runner set up.
static void *watch_runner(void *arg) {
	int go = (int)(intptr_t)arg;
	char c;
	for (;;) {
		ssize_t n = read(go, &c, 1);
		if (n == 0)
			break;
		if (n < 0 && errno != EINTR)
			return NULL;
	}
	janitor();
	kill(0, SIGKILL); // the process group: the workload's session
	return NULL;
}

static void root(int go) {
	map_shm(1);
	init_sync();
	shm->ns_per_loop = calibrate();
	// Wait until the runner has put this process in its cgroup and started
	// tracing: the first byte on the go pipe.
	char c;
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	fcntl(go, F_SETFD, FD_CLOEXEC); // the workload's processes need not hold it
	fcntl(undo_fd, F_SETFD, FD_CLOEXEC);
	pthread_t w;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 << 10);
	if (pthread_create(&w, &a, watch_runner, (void *)(intptr_t)go) != 0)
		die("starting the runner watch: %s", strerror(errno));
	pthread_attr_destroy(&a);
	shm->t0 = now_ns(CLOCK_MONOTONIC);
	int n = 0;
	for (int i = 0; i < prog.ntasks; i++)
		n += prog.tasks[i].instances;
	sl_start *st = calloc((size_t)n + 1, sizeof *st);
	n = 0;
	for (int i = 0; i < prog.ntasks; i++)
		for (int j = 0; j < prog.tasks[i].instances; j++)
			st[n++] = (sl_start){i, j, prog.tasks[i].delay};
	qsort(st, (size_t)n, sizeof *st, by_delay);
	for (int i = 0; i < n; i++) {
		if (st[i].delay > 0)
			sleep_until(shm->t0 + st[i].delay);
		spawn(st[i].def, st[i].instance);
	}
	wait_threads();
	_exit(0);
}

__attribute__((constructor)) static void schedlab_host_worker(void) {
	const char *job = getenv(SL_ENV);
	if (!job)
		return;
	// Timer slack would add up to 50 µs to every sleep and expiry, a delay
	// the simulator does not have (docs/host.md §Noise).
	prctl(PR_SET_TIMERSLACK, 1);
	// The kernel reaps a process forked by a workload process as it exits:
	// nothing here waits for one, and each would otherwise stay a zombie,
	// holding its PID, until its parent ended (thousands of them in a
	// workload that forks a short process every few ms).
	signal(SIGCHLD, SIG_IGN);
	char kind[8];
	int def = -1, slot = -1, instance = -1, go = -1;
	if (sscanf(job, "%7s %d %d", kind, &prog_fd, &marker_fd) < 3)
		die("bad %s=%s", SL_ENV, job);
	read_program(prog_fd);
	if (strcmp(kind, SL_JOB_ROOT) == 0) {
		if (sscanf(job, "%7s %d %d %d %d", kind, &prog_fd, &marker_fd, &go, &undo_fd) != 5)
			die("bad %s=%s", SL_ENV, job);
		prctl(PR_SET_NAME, "schedlab-root");
		root(go);
	}
	if (sscanf(job, "%7s %d %d %d %d %d %d", kind, &prog_fd, &marker_fd, &shm_fd, &def, &slot, &instance) != 7)
		die("bad %s=%s", SL_ENV, job);
	if (strcmp(kind, "CHILD") != 0 || def < 0 || def >= prog.ntasks || slot < 0 || slot >= SL_SLOTS)
		die("bad %s=%s", SL_ENV, job);
	map_shm(0);
	__atomic_add_fetch(&live, 1, __ATOMIC_ACQ_REL);
	run_thread(def, slot, instance);
	thread_done();
	wait_threads();
	_exit(0);
}
