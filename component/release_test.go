package component_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/component/binary"
	"github.com/kobako/kobako/engine"
)

// TestCompileReleasesInput checks that a *Component keeps nothing of the binary it was compiled
// from: the core modules' bytes are dropped and the custom sections are copies, so overwriting
// the input changes nothing and the component still instantiates and runs.
func TestCompileReleasesInput(t *testing.T) {
	b, err := os.ReadFile("testdata/hello.wasm")
	if err != nil {
		t.Fatal(err)
	}
	input := bytes.Clone(b)
	cc, err := component.Compile(context.Background(), testEngine(t), input)
	if err != nil {
		t.Fatal(err)
	}
	var custom [][]byte
	var walk func(c *binary.Component)
	walk = func(c *binary.Component) {
		for _, cs := range c.Custom {
			custom = append(custom, bytes.Clone(cs.Data))
		}
		for _, d := range c.Definitions {
			switch d := d.(type) {
			case *binary.CoreModule:
				if d.Bytes != nil {
					t.Errorf("core module at %d keeps %d input bytes", d.Offset, len(d.Bytes))
				}
			case *binary.NestedComponent:
				walk(d.Component)
			}
		}
	}
	walk(cc.Decoded())
	if len(custom) == 0 {
		t.Fatal("fixture has no custom sections; the test checks nothing about them")
	}
	for i := range input {
		input[i] = 0xff
	}
	i := 0
	walk = func(c *binary.Component) {
		for _, cs := range c.Custom {
			if !bytes.Equal(cs.Data, custom[i]) {
				t.Errorf("custom section %q changed with the input", cs.Name)
			}
			i++
		}
		for _, d := range c.Definitions {
			if n, ok := d.(*binary.NestedComponent); ok {
				walk(n.Component)
			}
		}
	}
	walk(cc.Decoded())
	w := &wasiStub{stdin: strings.NewReader("kobako\n")}
	in, err := w.linker(t, cc).Instantiate(context.Background(), newStore(t, engine.DefaultLimits()), cc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.Call(context.Background(), "wasi:cli/run#run"); err != nil || w.stdout.String() != "hello, kobako\n" {
		t.Fatalf("run after the input was overwritten: %v, stdout %q", err, w.stdout.String())
	}
}
