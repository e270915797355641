package component_test

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/kobako/kobako/component"
	"github.com/kobako/kobako/engine"
)

var (
	engOnce sync.Once
	eng     *engine.Engine
	engErr  error
)

// testEngine shares one engine across the runtime tests, as an embedder would.
func testEngine(t testing.TB) *engine.Engine {
	t.Helper()
	engOnce.Do(func() { eng, engErr = engine.New(context.Background(), engine.Config{}) })
	if engErr != nil {
		t.Fatal(engErr)
	}
	return eng
}

func compileFixture(t testing.TB, path string) *component.Component {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := component.Compile(context.Background(), testEngine(t), b)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return cc
}

func newStore(t testing.TB, lim engine.Limits) *engine.Store {
	t.Helper()
	s, err := testEngine(t).NewStore(context.Background(), lim)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

func instantiate(t testing.TB, l *component.Linker, path string) *component.Instance {
	t.Helper()
	cc := compileFixture(t, path)
	in, err := l.Instantiate(context.Background(), newStore(t, engine.DefaultLimits()), cc)
	if err != nil {
		t.Fatalf("instantiate %s: %v", path, err)
	}
	return in
}
