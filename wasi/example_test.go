package wasi_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/kobako/kobako/wasi"
)

// A host directory as a sandbox: paths cannot leave it, and writes draw on a budget.
func ExampleOpenHostDir() {
	dir, _ := os.MkdirTemp("", "volume")
	defer os.RemoveAll(dir)
	budget, _ := wasi.NewBudget(10, 0)
	d, err := wasi.OpenHostDir(dir, wasi.HostDirOptions{Budget: budget})
	if err != nil {
		panic(err)
	}
	defer d.Close()

	_, err = d.OpenAt("../etc/passwd", wasi.OpenFlags{})
	fmt.Println("escape:", err)

	n, _ := d.OpenAt("notes.txt", wasi.OpenFlags{Write: true, Create: true})
	f := n.(wasi.File)
	defer f.Close()
	written, err := f.Writev([][]byte{[]byte("12345678")}, -1)
	fmt.Println("write 8:", written, err)
	written, err = f.Writev([][]byte{[]byte("12345678")}, -1)
	fmt.Println("write 8 more:", written, err, "- budget used:", budget.Used())
	// Output:
	// escape: EPERM (operation not permitted)
	// write 8: 8 <nil>
	// write 8 more: 0 EDQUOT (quota exceeded) - budget used: 8
}

// A guest's stdin read through Input: strings.Reader never blocks, so Input reads it directly on
// the caller's goroutine, and a read that finds nothing more reports the end at once.
func ExampleInput() {
	in := wasi.NewInput(strings.NewReader("ping\n"))
	defer in.Close()
	ctx := context.Background()
	buf := make([]byte, 3)
	for {
		n, err := in.Read(ctx, buf, false)
		if err != nil {
			fmt.Println("end:", err, in.AtEOF())
			break
		}
		fmt.Printf("%q (%d more)\n", buf[:n], in.Buffered())
	}
	// Output:
	// "pin" (2 more)
	// "g\n" (0 more)
	// end: EOF true
}
