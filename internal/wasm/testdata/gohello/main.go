// Command gohello is a fixture: a Go program compiled with GOOS=wasip1 GOARCH=wasm, so the
// decoder and instrumenter are tested on real compiler output (br_table-heavy code, many
// globals, goroutine scheduling). It prints a deterministic digest of some work. The test builds it
// with the go command rather than committing a megabyte-sized binary.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"sort"
	"strconv"
	"strings"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	sort.Strings(words)
	m := map[string]int{}
	for _, w := range words {
		m[w]++
	}
	ch := make(chan int)
	go func() {
		for i := 0; i < 10; i++ {
			ch <- fib(i + 10)
		}
		close(ch)
	}()
	sum := 0
	for v := range ch {
		sum += v
	}
	h := sha256.Sum256([]byte(strings.Join(words, ",")))
	os.Stdout.WriteString(strings.Join(words, " ") + " " + strconv.Itoa(len(m)) + " " + strconv.Itoa(sum) + " " + hex.EncodeToString(h[:8]) + "\n")
	if len(os.Args) > 1 {
		os.Exit(3)
	}
}
