//go:build !unix

package subako

import "errors"

func mkfifo(string) error { return errors.New("no mkfifo on this platform") }
