package engine_test

import (
	"context"
	"fmt"
	"os"

	"github.com/kobako/kobako/engine"
)

// Keep prepared modules in a cache directory: the second engine, as a second process would,
// reads the module the first one prepared instead of decoding, checking and metering it again.
func ExampleConfig_cacheDir() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kobako-cache-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	wasm, err := os.ReadFile("testdata/fib.wasm")
	if err != nil {
		panic(err)
	}
	for range 2 {
		// CacheMinModuleSize -1: fib.wasm is far below the default minimum worth caching.
		e, err := engine.New(ctx, engine.Config{CacheDir: dir, CacheMinModuleSize: -1})
		if err != nil {
			panic(err)
		}
		if _, err := e.Compile(ctx, wasm); err != nil {
			panic(err)
		}
		st := e.CacheStats()
		fmt.Printf("prepared %d, read from the cache %d\n", st.Prepared, st.Hits)
		e.Close(ctx)
	}
	// Output:
	// prepared 1, read from the cache 0
	// prepared 0, read from the cache 1
}
