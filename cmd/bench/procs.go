package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// goTool is the go command: the one on PATH, else the one of this toolchain.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// moduleRoot is the directory of the go.mod that holds the working directory.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, goTool(), "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("run the benchmark inside the shlyuz module (go run ./cmd/bench)")
	}
	return filepath.Dir(gomod), nil
}

// build compiles the packages (without -race) into dir.
func build(ctx context.Context, root, dir string, pkgs ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	args := append([]string{"build", "-o", dir + string(os.PathSeparator)}, pkgs...)
	cmd := exec.CommandContext(ctx, goTool(), args...)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", strings.Join(pkgs, " "), err, out.String())
	}
	return nil
}

// freeAddr is a free loopback TCP address. (A small race until the child binds it.)
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// resolveAddr turns "127.0.0.1:0" into a free port; other addresses stay.
func resolveAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if !isLoopbackHost(host) {
		return "", fmt.Errorf("%s is not a loopback address", addr)
	}
	if port == "0" {
		return freeAddr()
	}
	return addr, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkLoopbackURL refuses a URL whose host is not a loopback address.
func checkLoopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("%s: the scheme must be http or https", raw)
	}
	if !isLoopbackHost(u.Hostname()) {
		return fmt.Errorf("%s is not on a loopback address (use -allow-remote to measure it anyway)", raw)
	}
	return nil
}

// child is a process this benchmark started. It runs in its own process
// group (a Ctrl-C in the terminal reaches only the benchmark, which stops
// it) and gets SIGKILL if the benchmark dies without cleaning up.
type child struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	logFile *os.File
	done    chan struct{}
	err     error
}

func startChild(name, bin string, args, env []string, logPath string) (*child, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, logPath: logPath, logFile: f, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop asks the child to stop (SIGTERM), and kills its process group after grace.
func (c *child) stop(grace time.Duration) {
	defer c.logFile.Close()
	if c.exited() {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
		return
	case <-time.After(grace):
	}
	_ = syscall.Kill(-c.pid(), syscall.SIGKILL) // its own process group
	_ = c.cmd.Process.Kill()
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
	}
}

// tail is the end of the child's log, for error messages.
func (c *child) tail(lines int) string {
	raw, err := os.ReadFile(c.logPath)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// waitReady polls until ready() holds, the child exits or timeout passes.
func waitReady(ctx context.Context, c *child, timeout time.Duration, what string, ready func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if ready() {
			return nil
		}
		if c != nil && c.exited() {
			return fmt.Errorf("%s exited while waiting for %s (%v); its log ends:\n%s", c.name, what, c.err, c.tail(30))
		}
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("timed out after %s waiting for %s", timeout, what)
			if c != nil {
				msg += "; " + c.name + "'s log ends:\n" + c.tail(30)
			}
			return errors.New(msg)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// httpOK reports whether GET url answers 200 within a second.
func httpOK(client *http.Client, url string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := client.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// procStatusKB is a "Vm…: N kB" field of /proc/<pid>/status, 0 if unknown.
func procStatusKB(pid int, field string) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	return parseStatusKB(raw, field)
}

func parseStatusKB(status []byte, field string) int64 {
	for _, line := range strings.Split(string(status), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return 0
		}
		v, _ := strconv.ParseInt(f[0], 10, 64)
		return v
	}
	return 0
}

// clockTicksPerSec is USER_HZ, 100 on every Linux the benchmark targets.
const clockTicksPerSec = 100

// cpuTime is the user+system CPU time of a process ("self" or a pid) from /proc/<pid>/stat.
func cpuTime(pid string) (time.Duration, bool) {
	raw, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	return parseStatCPU(raw)
}

func parseStatCPU(stat []byte) (time.Duration, bool) {
	// The command name may hold spaces and parentheses: fields start after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 { // f[0] is field 3 (state); utime is field 14, stime 15
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(ut+st) * time.Second / clockTicksPerSec, true
}

// rssSampler reads the VmRSS of a process every interval and keeps the
// peak of the samples taken between begin and end.
type rssSampler struct {
	pid      int
	mu       sync.Mutex
	on       bool
	peakKB   int64
	samples  int
	stopOnce sync.Once
	stopc    chan struct{}
	donec    chan struct{}
}

func newRSSSampler(pid int, every time.Duration) *rssSampler {
	s := &rssSampler{pid: pid, stopc: make(chan struct{}), donec: make(chan struct{})}
	go func() {
		defer close(s.donec)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.stopc:
				return
			case <-t.C:
				s.sample()
			}
		}
	}()
	return s
}

func (s *rssSampler) sample() {
	v := procStatusKB(s.pid, "VmRSS")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on && v > 0 {
		s.samples++
		s.peakKB = max(s.peakKB, v)
	}
}

func (s *rssSampler) begin() {
	s.mu.Lock()
	s.on = true
	s.mu.Unlock()
	s.sample()
}

// end stops keeping the peak and returns it with the number of samples.
func (s *rssSampler) end() (peakKB int64, samples int) {
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.peakKB, s.samples
}

func (s *rssSampler) stop() {
	s.stopOnce.Do(func() { close(s.stopc) })
	<-s.donec
}

// machineCPU is the busy and total jiffies of all CPUs from /proc/stat.
func machineCPU() (busy, total int64, ok bool) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	return parseProcStat(raw)
}

func parseProcStat(raw []byte) (busy, total int64, ok bool) {
	line, _, _ := bytes.Cut(raw, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, false
	}
	var idle int64
	for i, s := range f[1:] {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		if i >= 8 { // guest and guest_nice are already in user and nice
			break
		}
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return total - idle, total, true
}
