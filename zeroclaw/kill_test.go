package zeroclaw

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// churnEnv makes the test binary a churning child (see TestMain): it installs, updates and removes
// plugin p, rewrites the key and seeds config rows under the root the variable names, forever.
const churnEnv = "ZEROCLAW_TEST_CHURN_ROOT"

func TestMain(m *testing.M) {
	if root := os.Getenv(churnEnv); root != "" {
		churn(root)
	}
	os.Exit(m.Run())
}

// churn runs the operations of the crash tests in a loop, pausing up to a millisecond at each
// step so that a kill lands on every kind of step, and says "ready" once the loop runs.
func churn(root string) {
	if os.Getenv(churnEnv+"_ASIDE") != "" {
		exchangeDirs = func(a, b string) error {
			return &os.LinkError{Op: "exchange", Old: a, New: b, Err: errors.ErrUnsupported}
		}
	}
	stepHook = func(string) error {
		time.Sleep(time.Duration(rand.IntN(1000)) * time.Microsecond)
		return nil
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		var err error
		switch i % 4 {
		case 0, 1:
			err = installOrUpdate(root, fmt.Sprintf("src-%d", rand.IntN(2)+1))
		case 2:
			if h, herr := rootHost(root); herr != nil {
				err = herr
			} else if _, ok := h.Plugin("p"); ok && rand.IntN(2) == 0 {
				err = h.Remove("p")
			}
		case 3:
			_, err = GenerateKeyFile(filepath.Join(root, "keys", "p.pem"), true)
			if err == nil {
				_, err = SeedEntry(filepath.Join(root, "config.toml"), fmt.Sprintf("%s_%d", crashKey, rand.IntN(4)))
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "churn:", err)
			os.Exit(3)
		}
	}
}

// TestKilledAtRandom starts a child that installs, updates and removes a plugin, replaces a key
// and edits the config in a loop, kills it (SIGKILL where there are signals) at a random moment,
// and checks what a fresh kobako sees: the plugin absent or one whole version, a complete key,
// a config that loads with no duplicated row; then that its next operations succeed and leave
// nothing behind.
func TestKilledAtRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process many times")
	}
	root := crashRoot(t)
	os.MkdirAll(filepath.Join(root, "keys"), 0o700)
	for i := range 15 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), churnEnv+"="+root)
		if i%2 == 1 {
			// Every other child updates by moving the old version aside, as where directories
			// cannot be exchanged.
			cmd.Env = append(cmd.Env, churnEnv+"_ASIDE=1")
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr lockedWriter
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Skipf("this test binary cannot run itself here: %v", err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Skipf("the child did not start churning (%q, %v): %s", line, err, stderr.String())
		}
		time.Sleep(time.Duration(5+rand.IntN(150)) * time.Millisecond)
		cmd.Process.Kill()
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 3 {
			t.Fatalf("kill %d: the child ended with %v before it was killed: %s", i, err, stderr.String())
		}
		if st := pluginState(root); st != "" && st != "p@1" && st != "p@2" {
			t.Errorf("kill %d: plugins %q", i, st)
		}
		if st := keyState(root); len(st) != 64 && st != "" {
			t.Errorf("kill %d: key %q", i, st)
		}
		cfg, err := LoadConfig(filepath.Join(root, "config.toml"), false)
		if err != nil {
			t.Errorf("kill %d: config: %v", i, err)
		} else {
			for _, e := range cfg.Plugins.Entries {
				if _, err := cfg.Plugins.EntryConfig(e.Name); err != nil {
					t.Errorf("kill %d: config entry %s: %v", i, e.Name, err)
				}
			}
		}
	}
	// A fresh kobako's operations succeed and clean up after the killed one.
	if err := installOrUpdate(root, "src-2"); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateKeyFile(filepath.Join(root, "keys", "p.pem"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := SeedEntry(filepath.Join(root, "config.toml"), crashKey); err != nil {
		t.Fatal(err)
	}
	if st := pluginState(root); st != "p@2" {
		t.Errorf("after a fresh update: %q", st)
	}
	if d := debris(root); len(d) > 0 {
		t.Errorf("left %q", d)
	}
}

// lockedWriter collects a child's stderr.
type lockedWriter struct {
	mu sync.Mutex
	b  []byte
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b = append(w.b, p...)
	return len(p), nil
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.b)
}
