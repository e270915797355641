// Command gocmd is a Go (GOOS=wasip1) command made into a wasi:cli/run component with the
// preview 1 command adapter. It prints its arguments and an environment variable, copies stdin
// to stdout upper-cased with a line count on stderr, and exits with the status given by
// EXIT_CODE (0 if unset).
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	fmt.Printf("args=%q greeting=%q\n", os.Args[1:], os.Getenv("GREETING"))
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	n := 0
	for sc.Scan() {
		n++
		fmt.Println(strings.ToUpper(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "read stdin:", err)
		os.Exit(3)
	}
	fmt.Fprintf(os.Stderr, "%d lines\n", n)
	code, _ := strconv.Atoi(os.Getenv("EXIT_CODE"))
	os.Exit(code)
}
