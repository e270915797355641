package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Resolver looks up the addresses of a host name. *net.Resolver satisfies it. Whatever it
// returns is checked by the address rules before anything is dialled, so a resolver cannot
// weaken the policy; tests use one to simulate DNS rebinding.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc dials one already-checked "ip:port" address.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

const (
	// dialTimeout bounds resolution plus connection attempts. net/http runs dials detached from
	// the request's deadline (a finished dial may serve a later request), so without this bound
	// an abandoned dial to a black hole would hold a goroutine and a socket until the kernel
	// gives up.
	dialTimeout = 30 * time.Second
	// minAttempt is the least time one address gets when several share the deadline.
	minAttempt = 2 * time.Second
	// maxDialAddrs bounds how many resolved addresses are tried, so a resolver answer of
	// thousands of records cannot turn one request into thousands of connection attempts.
	maxDialAddrs = 8
)

// dialer resolves, checks every address, then dials one checked IP at a time.
type dialer struct {
	resolver     Resolver
	allowPrivate bool
	exempt       []netip.Prefix // Options.UnsafeAllowAddrs
	dialIP       DialFunc
}

func newDialer(opts Options) *dialer {
	d := &dialer{resolver: opts.Resolver, allowPrivate: opts.AllowPrivate, exempt: append([]netip.Prefix(nil), opts.UnsafeAllowAddrs...)}
	if d.resolver == nil {
		d.resolver = net.DefaultResolver
	}
	if opts.UnsafeDialIP != nil {
		d.dialIP = opts.UnsafeDialIP
	} else {
		nd := &net.Dialer{
			KeepAlive: 30 * time.Second,
			// The Control hook sees the socket address the kernel is about to connect to:
			// the last point at which the address can be checked, independent of how it
			// was obtained.
			ControlContext: d.control,
		}
		d.dialIP = nd.DialContext
	}
	return d
}

// checkAddr applies the address rules with the test-only exemptions.
func (d *dialer) checkAddr(a netip.Addr) error {
	if d.allowPrivate {
		return nil
	}
	for _, p := range d.exempt {
		if a.Zone() == "" && (p.Contains(a) || p.Contains(a.Unmap())) {
			return nil
		}
	}
	return CheckAddr(a)
}

// control is the net.Dialer ControlContext hook: it refuses the connect(2) itself when the
// socket address is forbidden, whatever path led to it.
func (d *dialer) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return errorf(ReasonAddress, err, "destination is not an IP address and port")
	}
	return d.checkAddr(ap.Addr())
}

// dialContext is http.Transport.DialContext. address is the URL's "host:port", already
// admitted by the allowlist.
func (d *dialer) dialContext(ctx context.Context, _, address string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	host, portStr, err := net.SplitHostPort(address)
	if err != nil {
		return nil, errorf(ReasonURL, err, "bad dial address")
	}
	port, err := parsePort(portStr)
	if err != nil {
		return nil, errorf(ReasonURL, err, "bad dial port")
	}
	var addrs []netip.Addr
	literal := false
	if a, err := netip.ParseAddr(host); err == nil {
		addrs, literal = []netip.Addr{a}, true
	} else {
		if isLocalhostName(host) && !d.allowPrivate {
			return nil, errorf(ReasonLocalhost, nil, "%s is a loopback name (RFC 6761 §6.3)", host)
		}
		addrs, err = d.resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			if ctx.Err() != nil {
				return nil, errorf(ReasonConnectTimeout, err, "resolving %s timed out", host)
			}
			return nil, errorf(ReasonDNS, err, "cannot resolve %s", host)
		}
		if len(addrs) == 0 {
			return nil, errorf(ReasonDNS, nil, "%s has no addresses", host)
		}
		// Go's resolver answers an IPv4 address (from DNS or a hosts file) in its IPv4-mapped
		// IPv6 form; it is checked and dialled as IPv4 anyway, and said as the user wrote it.
		for i, a := range addrs {
			addrs[i] = a.Unmap()
		}
	}
	// Every address is checked before any is dialled: a name that resolves to a forbidden
	// address next to a public one is the shape of a rebinding attack, and refusing it as a
	// whole keeps the outcome independent of which address would have answered first.
	for _, a := range addrs {
		if err := d.checkAddr(a); err != nil {
			var e *Error
			if !literal && errors.As(err, &e) {
				r, _ := classifyAddr(a)
				e.Message = fmt.Sprintf("%s resolves to %s, an address that is %s (%s)", host, a, r.Name, r.Ref)
			}
			return nil, err
		}
	}
	if len(addrs) > maxDialAddrs {
		addrs = addrs[:maxDialAddrs]
	}
	var firstErr error
	for i, a := range addrs {
		// Unmap so that the socket family matches the address actually used.
		ap := netip.AddrPortFrom(a.Unmap(), port)
		network := "tcp4"
		if ap.Addr().Is6() {
			network = "tcp6"
		}
		actx, acancel := attemptContext(ctx, len(addrs)-i)
		c, err := d.dialIP(actx, network, ap.String())
		acancel()
		if err == nil {
			return c, nil
		}
		var e *Error
		if errors.As(err, &e) {
			return nil, err // a policy refusal from the Control hook: do not try further
		}
		if firstErr == nil {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return nil, errorf(ReasonConnectTimeout, firstErr, "connecting to %s timed out", host)
	}
	return nil, errorf(ReasonConnect, firstErr, "cannot connect to %s", host)
}

// attemptContext gives one of n remaining addresses its share of ctx's time, as net.Dialer
// does, so a black-holed first address does not eat the whole deadline.
func attemptContext(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	deadline, ok := ctx.Deadline()
	if !ok || n <= 1 {
		return context.WithCancel(ctx)
	}
	left := time.Until(deadline)
	share := left / time.Duration(n)
	if share < minAttempt {
		share = min(minAttempt, left)
	}
	return context.WithTimeout(ctx, share)
}
