package jupyter

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// strayUID is a user id that no account uses; the test runs processes as it.
const strayUID = 54323

// uidProcs returns the pids of the live processes whose /proc entry uid owns.
func uidProcs(t *testing.T, uid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fi, err := os.Stat("/proc/" + e.Name())
		if err != nil || int(fi.Sys().(*syscall.Stat_t).Uid) != uid {
			continue
		}
		if stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat"); !strings.Contains(string(stat), ") Z ") { // zombies are dead
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestKillStrays runs the driver's kill_strays on a stray process beside the
// process to keep (the kernel): the first must be killed, the second alive
// and running again (kill_strays stops every process of the user first).
// It uses no process that forks and exits: where pid 1 does not reap
// orphans, each one of them would stay a zombie.
func TestKillStrays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes (-short)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if os.Geteuid() != 0 || err != nil {
		t.Skip("needs root and setpriv")
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3")
	}
	if len(uidProcs(t, strayUID)) > 0 {
		t.Skipf("uid %d has processes", strayUID)
	}
	as := func(args ...string) *exec.Cmd {
		u := strconv.Itoa(strayUID)
		return exec.Command(setpriv, append([]string{"--reuid=" + u, "--regid=" + u, "--clear-groups", "--"}, args...)...)
	}
	keep := as("sleep", "60")
	if err := keep.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		keep.Process.Kill()
		keep.Wait()
	}()
	stray := as("sleep", "60")
	if err := stray.Start(); err != nil {
		t.Fatal(err)
	}
	defer stray.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- stray.Wait() }()
	time.Sleep(300 * time.Millisecond)
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/driver.py", []byte(driverScript), 0o644); err != nil {
		t.Fatal(err)
	}
	code := "import sys\nsys.path.insert(0, sys.argv[1])\nimport driver\nprint(driver.kill_strays(int(sys.argv[2]), int(sys.argv[3])))\n"
	out, err := exec.Command(python, "-c", code, dir, strconv.Itoa(strayUID), strconv.Itoa(keep.Process.Pid)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Errorf("the stray survived")
	}
	for _, pid := range uidProcs(t, strayUID) {
		if pid != keep.Process.Pid && pid != stray.Process.Pid {
			stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			t.Errorf("another process of uid %d: %s", strayUID, stat)
		}
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(keep.Process.Pid) + "/stat")
	if err != nil || strings.Contains(string(stat), ") T ") {
		t.Errorf("the kept process is gone or stopped: %q %v", stat, err)
	}
}
