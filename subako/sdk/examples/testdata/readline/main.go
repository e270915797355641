// Command readline is the floor of any Go wasip1 program that answers a line: it reads one line
// from stdin and writes a fixed answer, with no JSON at all. It measures the Go runtime's own
// start-up.
package main

import (
	"bufio"
	"os"
)

func main() {
	line, err := bufio.NewReader(os.Stdin).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		os.Exit(1)
	}
	os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}` + "\n")
}
