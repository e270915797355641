// Command hello is the example kobako runs when `kobako run` is given no file: a WASI preview 1
// command that shows what the guest sees, then does some metered work.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
)

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func main() {
	fmt.Println("Hello from a WebAssembly guest running on kobako's pure-Go interpreter!")
	fmt.Printf("args: %q\n", os.Args)
	fmt.Printf("fib(20) = %d\n", fib(20))
	sum := sha256.Sum256([]byte("kobako"))
	fmt.Printf("sha256(\"kobako\") = %x\n", sum)
	// A statement, not "Try --stats": the guest cannot tell whether it already runs under it.
	fmt.Println("`kobako run --stats` reports the fuel this used; `--fuel 1000` makes it run out.")
}
