package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/kobako/kobako/engine"
)

// A trap carries the end of the guest's stderr output (bounded, valid UTF-8); other errors and
// traps without output do not.
func TestCallError_GuestStderr(t *testing.T) {
	r := &Runner{}
	trap := &engine.Trap{Kind: engine.TrapUnreachable, Function: "$12600"}
	long := strings.Repeat("x", 3*StderrTailBytes) + "Error: expected a string, received [object]\n    at execute (plugin.js:3)\n"
	tests := []struct {
		name   string
		writes []string
		err    error
		want   string // the Stderr of the *TrapError; "" for none
	}{
		{"thrown error", []string{"Error: boom\n", "    at execute (plugin.js:3)\n"}, trap, "Error: boom\n    at execute (plugin.js:3)\n"},
		{"no output", nil, trap, ""},
		{"tail of a long output", []string{long}, trap, long[len(long)-StderrTailBytes:]},
		{"tail of many writes", strings.SplitAfter(long, "x"), trap, long[len(long)-StderrTailBytes:]},
		{"invalid UTF-8", []string{"bad \xff byte"}, trap, "bad \uFFFD byte"},
		{"canceled is not a trap with output", []string{"noise"}, engine.ErrInstanceUnavailable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &instanceState{}
			for _, w := range tt.writes {
				st.stderr.Write([]byte(w))
			}
			err := r.callError("tool.execute", st, tt.err)
			if got := GuestStderr(err); got != tt.want {
				t.Fatalf("GuestStderr = %q (%d bytes), want %q (%d bytes)", got, len(got), tt.want, len(tt.want))
			}
			if tt.want == "" {
				return
			}
			if !errors.Is(err, ErrTrapped) || !errors.Is(err, engine.ErrUnreachable) ||
				err.Error() != "tool.execute trapped: wasm trap: unreachable in function $12600" {
				t.Errorf("error %q does not read and unwrap as the trap", err)
			}
		})
	}
}
