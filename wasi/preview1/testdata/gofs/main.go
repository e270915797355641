// Command gofs is a GOOS=wasip1 test guest for package preview1: each scenario (argv[1]) uses the
// Go standard library the way real programs do and prints what happened, one line per step.
package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gofs scenario [args]")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "echo":
		echo()
	case "lines":
		lines()
	case "fs":
		fsScenario()
	case "sleep":
		sleep()
	case "random":
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			fail(err)
		}
		fmt.Println(hex.EncodeToString(b))
	case "exit":
		n, _ := strconv.Atoi(os.Args[2])
		fmt.Println("exiting with", n)
		os.Exit(n)
	case "quota":
		quota()
	case "spin":
		for {
		}
	default:
		fmt.Fprintln(os.Stderr, "unknown scenario", os.Args[1])
		os.Exit(2)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}

// echo copies stdin to stdout and reports args and environment on stderr.
func echo() {
	fmt.Fprintf(os.Stderr, "args=%q env=%q\n", os.Args, os.Environ())
	n, err := io.Copy(os.Stdout, os.Stdin)
	if err != nil {
		fail(err)
	}
	fmt.Fprintf(os.Stderr, "copied %d bytes\n", n)
}

// lines answers each stdin line as it arrives, like an MCP server over stdio.
func lines() {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		fmt.Printf("got %q\n", sc.Text())
	}
	if err := sc.Err(); err != nil {
		fail(err)
	}
	fmt.Println("eof")
}

func sleep() {
	start := time.Now()
	time.Sleep(50 * time.Millisecond)
	el := time.Since(start)
	fmt.Println("slept at least 50ms:", el >= 50*time.Millisecond)
}

// errName gives the WASI errno name of err, so the expected output does not depend on Go's
// message wording.
func errName(err error) string {
	if err == nil {
		return "ok"
	}
	var e syscall.Errno
	if errors.As(err, &e) {
		names := map[syscall.Errno]string{syscall.EPERM: "EPERM", syscall.ENOENT: "ENOENT",
			syscall.EEXIST: "EEXIST", syscall.ENOTDIR: "ENOTDIR", syscall.EISDIR: "EISDIR",
			syscall.ENOTEMPTY: "ENOTEMPTY", syscall.EDQUOT: "EDQUOT", syscall.EBADF: "EBADF",
			syscall.ENOTCAPABLE: "ENOTCAPABLE", syscall.EACCES: "EACCES", syscall.ENOTSUP: "ENOTSUP",
			syscall.EXDEV: "EXDEV", syscall.ELOOP: "ELOOP"}
		if n, ok := names[e]; ok {
			return n
		}
		return fmt.Sprintf("errno %d", int(e))
	}
	return err.Error()
}

func step(name string, err error) { fmt.Printf("%s: %s\n", name, errName(err)) }

// fsScenario expects preopens /rw (writable, empty), /ro (read-only, holding ro.txt and a link
// "escape" pointing outside the directory) and /pkg (an fs.FS holding info.txt and dir/a.txt).
func fsScenario() {
	step("write /rw/a.txt", os.WriteFile("/rw/a.txt", []byte("alpha\n"), 0o644))
	b, err := os.ReadFile("/rw/a.txt")
	step("read /rw/a.txt "+strconv.Quote(string(b)), err)

	f, err := os.OpenFile("/rw/a.txt", os.O_APPEND|os.O_WRONLY, 0)
	step("open append", err)
	if err == nil {
		_, err = f.WriteString("beta\n")
		step("append", err)
		step("close", f.Close())
	}
	b, err = os.ReadFile("/rw/a.txt")
	step("read again "+strconv.Quote(string(b)), err)

	step("mkdir /rw/d", os.Mkdir("/rw/d", 0o755))
	step("mkdir /rw/d again", os.Mkdir("/rw/d", 0o755))
	step("mkdir -p /rw/d/e/f", os.MkdirAll("/rw/d/e/f", 0o755))
	step("write /rw/d/e/f/g", os.WriteFile("/rw/d/e/f/g", []byte("g"), 0o644))
	step("rename a.txt -> d/b.txt", os.Rename("/rw/a.txt", "/rw/d/b.txt"))
	fi, err := os.Stat("/rw/d/b.txt")
	if err == nil {
		step(fmt.Sprintf("stat d/b.txt size=%d dir=%v mode=%v", fi.Size(), fi.IsDir(), fi.Mode().Type()), nil)
	} else {
		step("stat d/b.txt", err)
	}
	step("symlink d/link -> b.txt", os.Symlink("b.txt", "/rw/d/link"))
	target, err := os.Readlink("/rw/d/link")
	step("readlink d/link = "+target, err)
	b, err = os.ReadFile("/rw/d/link")
	step("read through link "+strconv.Quote(string(b)), err)
	step("symlink escaping", os.Symlink("../../outside", "/rw/d/bad"))
	step("symlink absolute", os.Symlink("/etc/passwd", "/rw/abs"))
	fi, err = os.Lstat("/rw/d/link")
	if err == nil {
		step("lstat d/link symlink="+strconv.FormatBool(fi.Mode()&fs.ModeSymlink != 0), nil)
	}

	entries, err := os.ReadDir("/rw/d")
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name()+map[bool]string{true: "/", false: ""}[e.IsDir()])
	}
	step("readdir /rw/d "+strings.Join(names, ","), err)

	var walked []string
	err = fsWalk("/rw", &walked)
	step("walk /rw "+strings.Join(walked, ","), err)

	step("remove non-empty dir", syscall.Rmdir("/rw/d/e"))
	step("removeall /rw/d/e", os.RemoveAll("/rw/d/e"))
	step("remove d/link", os.Remove("/rw/d/link"))
	step("truncate d/b.txt", os.Truncate("/rw/d/b.txt", 3))
	b, err = os.ReadFile("/rw/d/b.txt")
	step("read truncated "+strconv.Quote(string(b)), err)
	mt := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	step("chtimes", os.Chtimes("/rw/d/b.txt", mt, mt))
	fi, err = os.Stat("/rw/d/b.txt")
	if err == nil {
		step("mtime "+fi.ModTime().UTC().Format(time.RFC3339), nil)
	}

	b, err = os.ReadFile("/ro/ro.txt")
	step("read /ro/ro.txt "+strconv.Quote(string(b)), err)
	step("write /ro/new.txt", os.WriteFile("/ro/new.txt", []byte("x"), 0o644))
	_, err = os.OpenFile("/ro/ro.txt", os.O_WRONLY, 0)
	step("open /ro/ro.txt for writing", err)
	step("mkdir /ro/x", os.Mkdir("/ro/x", 0o755))
	step("remove /ro/ro.txt", os.Remove("/ro/ro.txt"))
	_, err = os.ReadFile("/ro/escape")
	step("read /ro/escape", err)
	_, err = os.Stat("/ro/escape")
	step("stat /ro/escape", err)

	b, err = os.ReadFile("/pkg/info.txt")
	step("read /pkg/info.txt "+strconv.Quote(string(b)), err)
	b, err = os.ReadFile("/pkg/dir/a.txt")
	step("read /pkg/dir/a.txt "+strconv.Quote(string(b)), err)
	step("write /pkg/new", os.WriteFile("/pkg/new", nil, 0o644))
	entries, err = os.ReadDir("/pkg")
	names = names[:0]
	for _, e := range entries {
		names = append(names, e.Name())
	}
	step("readdir /pkg "+strings.Join(names, ","), err)

	_, err = os.ReadFile("/elsewhere/x")
	step("read outside every preopen", err)
	wd, _ := os.Getwd()
	step("cwd "+wd, nil)
}

func fsWalk(dir string, out *[]string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := dir + "/" + e.Name()
		*out = append(*out, strings.TrimPrefix(p, "/rw/"))
		if e.IsDir() {
			if err := fsWalk(p, out); err != nil {
				return err
			}
		}
	}
	sort.Strings(*out)
	return nil
}

// quota writes 4 KiB chunks to /rw/big until a write fails, then reports the failure and the
// size reached.
func quota() {
	f, err := os.Create("/rw/big")
	if err != nil {
		fail(err)
	}
	chunk := make([]byte, 4096)
	total := 0
	for {
		n, err := f.Write(chunk)
		total += n
		if err != nil {
			step(fmt.Sprintf("after %d bytes", total), err)
			break
		}
	}
	f.Close()
	fi, err := os.Stat("/rw/big")
	if err == nil {
		fmt.Println("size", fi.Size())
	}
}
