package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one verb's flag set with its help text. Help (-h) goes to stdout, as top-level help
// does; a flag the set does not take is one `error:` line and a one-line hint on stderr, never the
// whole flag list.
type command struct {
	*flag.FlagSet
	path   string // "kobako function call"
	usage  string // the text before the flags, ending in a newline
	stdout io.Writer
	stderr io.Writer
}

func newCommand(path, usage string, stdout, stderr io.Writer) *command {
	fs := flag.NewFlagSet(path, flag.ContinueOnError)
	// The flag package prints its error and the usage itself on a bad flag; both go nowhere and
	// parse reports the error once, in kobako's form.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{FlagSet: fs, path: path, usage: usage, stdout: stdout, stderr: stderr}
}

// printHelp writes the usage and the flags to stdout.
func (c *command) printHelp() {
	fmt.Fprint(c.stdout, c.usage)
	hasFlags := false
	c.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(c.stdout, "\nFlags:\n")
		c.SetOutput(c.stdout)
		c.PrintDefaults()
		c.SetOutput(io.Discard)
	}
}

// usageErr reports a usage mistake on stderr with the hint to -h and returns exitUsage.
func (c *command) usageErr(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "error: "+format+"\n", args...)
	fmt.Fprintf(c.stderr, "Run '%s -h' for usage.\n", c.path)
	return exitUsage
}

// parse parses args, flags anywhere among the positional arguments when interspersed ("--" ends
// the flags). It returns the positional arguments and -1, or the exit status to return now: 0
// after -h, exitUsage after a bad flag.
func (c *command) parse(args []string, interspersed bool) ([]string, int) {
	var pos []string
	for {
		err := c.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.printHelp()
			return nil, 0
		}
		if err != nil {
			return nil, c.usageErr("%s", flagError(err))
		}
		rest := c.Args()
		consumed := len(args) - len(rest)
		if !interspersed || len(rest) == 0 || (consumed > 0 && args[consumed-1] == "--") {
			return append(pos, rest...), -1
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagError rewords the flag package's errors: `invalid value "lots" for flag -max-memory: size
// "lots": ...` keeps only what helps, and flags are spelled with two dashes as the help shows them.
func flagError(err error) string {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag --" + rest
	}
	if rest, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return "flag --" + rest + " needs a value"
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// invalid value "x" for flag -name: reason
		val, after, ok1 := strings.Cut(rest, " for flag -")
		name, reason, ok2 := strings.Cut(after, ": ")
		if ok1 && ok2 {
			if reason == "parse error" || strings.HasPrefix(reason, "strconv.") {
				return fmt.Sprintf("invalid value %s for --%s", val, name)
			}
			return fmt.Sprintf("invalid value %s for --%s: %s", val, name, reason)
		}
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		return "invalid boolean value " + strings.Replace(rest, "for -", "for --", 1)
	}
	return msg
}

// exitInterrupted is the status after Ctrl-C, 128 + SIGINT as shells report it.
const exitInterrupted = 130

// maxArgsBytes caps an ARGS operand read from stdin or a file.
const maxArgsBytes = 16 << 20

// readArgs reads the ARGS operand of `function call` and `plugin call`: the JSON itself, "-" for
// stdin or "@FILE", and checks that it is one JSON object, so a malformed ARGS is refused before
// anything is loaded. Its errors begin with "ARGS". Reading stdin stops when ctx is cancelled (Ctrl-C while a terminal waits for
// input) and returns ctx.Err(): the caller reports an interruption, not a usage mistake.
func readArgs(ctx context.Context, v string, stdin io.Reader) (json.RawMessage, error) {
	b, err := readArgsSource(ctx, v, stdin)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("ARGS %s: %v", v, err)
	}
	if err := checkArgsJSON(b); err != nil {
		return nil, fmt.Errorf("ARGS: %v", err)
	}
	return b, nil
}

// readArgsSource reads a value given as "-" (stdin) or "@FILE"; anything else is the value itself.
func readArgsSource(ctx context.Context, v string, stdin io.Reader) ([]byte, error) {
	switch {
	case v == "-":
		// A read from a terminal cannot be interrupted, so it runs apart and is abandoned on
		// cancellation; the process exits right after.
		type result struct {
			b   []byte
			err error
		}
		done := make(chan result, 1)
		go func() {
			b, err := readCapped(stdin)
			done <- result{b, err}
		}()
		select {
		case r := <-done:
			return r.b, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case strings.HasPrefix(v, "@"):
		f, err := os.Open(v[1:])
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return readCapped(f)
	}
	return []byte(v), nil
}

func readCapped(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxArgsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxArgsBytes {
		return nil, fmt.Errorf("more than %d bytes", maxArgsBytes)
	}
	return b, nil
}

// checkArgsJSON checks that b is one JSON object, and says where it is not.
func checkArgsJSON(b []byte) error {
	var v any
	err := json.Unmarshal(b, &v)
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := lineCol(b, syn.Offset)
		return fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, err)
	case err != nil:
		return err
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("arguments must be a JSON object, not %s", jsonKind(v))
	}
	return nil
}
