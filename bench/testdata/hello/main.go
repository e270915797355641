// Command hello is the Go command-module guest for the instantiate-and-run benchmark: the cost of a
// fresh Go runtime start-up, one write to stdout and proc_exit.
package main

import "fmt"

func main() {
	fmt.Println("hello, world")
}
