package boundedfile

import "errors"

var (
	// ErrNotRegular reports a file that is not a regular file: a directory, a named pipe, a
	// device, a socket (a symbolic link is followed, and its target is what is judged).
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge reports a file over the cap, by its size or by what reading it gave.
	ErrTooLarge = errors.New("too large")
)
