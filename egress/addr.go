package egress

import (
	"fmt"
	"net/netip"
)

// AddrRange is one row of the refused-address table: a prefix, what it is, and where it is
// defined.
type AddrRange struct {
	Prefix netip.Prefix
	Name   string
	Ref    string
}

// refusedRanges lists every address range a request may never reach. It follows the IANA
// special-purpose address registries
// (https://www.iana.org/assignments/iana-ipv4-special-registry,
// https://www.iana.org/assignments/iana-ipv6-special-registry) and refuses every entry of them,
// including the few marked "globally reachable" (anycast service addresses such as AS112, PCP
// and TURN anycast, AMT): none of them serves HTTPS to a plugin, and a short, uniform rule is
// easier to audit than a per-entry judgement.
//
// Three IPv6 forms carry an IPv4 address and are judged by that address instead of by this
// table (see CheckAddr): IPv4-mapped ::ffff:0:0/96 (the dialler connects to the IPv4 address
// itself) and the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052; public IPv4 hosts are reached
// this way on IPv6-only networks). IPv6 outside 2000::/3 (global unicast, RFC 4291 §2.4) is
// refused as a whole after those two, so an unlisted reserved block cannot slip through.
//
// Lookup is longest-prefix match, so the order below is for reading only.
var refusedRanges = []AddrRange{
	// IPv4.
	{netip.MustParsePrefix("0.0.0.0/8"), "this network (unspecified)", "RFC 791, RFC 1122 §3.2.1.3"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private-use", "RFC 1918"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT)", "RFC 6598"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback", "RFC 1122 §3.2.1.3"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local", "RFC 3927"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private-use", "RFC 1918"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments (DS-Lite, PCP/TURN anycast, NAT64 discovery)", "RFC 6890 §2.1, RFC 7335, RFC 7723, RFC 8155, RFC 7050"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)", "RFC 5737"},
	{netip.MustParsePrefix("192.31.196.0/24"), "AS112-v4", "RFC 7535"},
	{netip.MustParsePrefix("192.52.193.0/24"), "AMT", "RFC 7450"},
	{netip.MustParsePrefix("192.88.99.0/24"), "deprecated 6to4 relay anycast", "RFC 7526"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private-use", "RFC 1918"},
	{netip.MustParsePrefix("192.175.48.0/24"), "direct delegation AS112 service", "RFC 7534"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking", "RFC 2544"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)", "RFC 5737"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)", "RFC 5737"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast", "RFC 5771"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved for future use", "RFC 1112 §4"},
	{netip.MustParsePrefix("255.255.255.255/32"), "limited broadcast", "RFC 919, RFC 8190"},

	// IPv6.
	{netip.MustParsePrefix("::/128"), "unspecified", "RFC 4291 §2.5.2"},
	{netip.MustParsePrefix("::1/128"), "loopback", "RFC 4291 §2.5.3"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)", "RFC 4291 §2.5.5.1"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated", "RFC 2765 §2.1"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use IPv4/IPv6 translation", "RFC 8215"},
	{netip.MustParsePrefix("100::/64"), "discard-only", "RFC 6666"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "dummy IPv6 prefix", "RFC 9780"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (Teredo, ORCHID, AS112, AMT, …)", "RFC 2928, RFC 4380, RFC 7343"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation", "RFC 3849"},
	{netip.MustParsePrefix("2002::/16"), "6to4", "RFC 3056, RFC 7526"},
	{netip.MustParsePrefix("2620:4f:8000::/48"), "direct delegation AS112 service", "RFC 7534"},
	{netip.MustParsePrefix("3fff::/20"), "documentation", "RFC 9637"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing (SRv6) SIDs", "RFC 9602"},
	{netip.MustParsePrefix("fc00::/7"), "unique local (ULA)", "RFC 4193"},
	{netip.MustParsePrefix("fe80::/10"), "link-local", "RFC 4291 §2.5.6"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)", "RFC 3879"},
	{netip.MustParsePrefix("ff00::/8"), "multicast", "RFC 4291 §2.7"},
}

var (
	prefixGlobalUnicast = netip.MustParsePrefix("2000::/3")
	prefixNAT64         = netip.MustParsePrefix("64:ff9b::/96")
	notGlobalUnicast    = AddrRange{netip.MustParsePrefix("::/0"), "outside IPv6 global unicast 2000::/3 (reserved by the IETF)", "RFC 4291 §2.4"}
)

// RefusedRanges returns a copy of the table of refused address ranges, for documentation and
// audits. CheckAddr is the authority: it also unwraps IPv4-mapped and NAT64 addresses and refuses
// IPv6 outside 2000::/3.
func RefusedRanges() []AddrRange {
	return append([]AddrRange(nil), refusedRanges...)
}

// lookupRange returns the most specific refused range containing a.
func lookupRange(a netip.Addr) (AddrRange, bool) {
	best, found := AddrRange{}, false
	for _, r := range refusedRanges {
		if r.Prefix.Contains(a) && (!found || r.Prefix.Bits() > best.Prefix.Bits()) {
			best, found = r, true
		}
	}
	return best, found
}

// CheckAddr returns nil when a request may connect to a, and otherwise a
// KindForbiddenDestination *Error naming the range and its reference. Invalid addresses and
// addresses with an IPv6 zone are refused: a zone only ever scopes link-local or multicast
// addresses, and it would let one spelling name many interfaces.
func CheckAddr(a netip.Addr) error {
	r, refused := classifyAddr(a)
	if !refused {
		return nil
	}
	return &Error{
		Kind:    KindForbiddenDestination,
		Reason:  ReasonAddress,
		Message: fmt.Sprintf("destination address is %s (%s)", r.Name, r.Ref),
		Addr:    a,
	}
}

func classifyAddr(a netip.Addr) (AddrRange, bool) {
	if !a.IsValid() {
		return AddrRange{Name: "not a valid address", Ref: "RFC 791, RFC 4291"}, true
	}
	if a.Zone() != "" {
		return AddrRange{Name: "scoped by an IPv6 zone", Ref: "RFC 4007 §11"}, true
	}
	if a.Is4In6() {
		r, refused := classifyAddr(a.Unmap())
		if refused {
			r.Name = "IPv4-mapped " + r.Name
		}
		return r, refused
	}
	if a.Is6() && prefixNAT64.Contains(a) {
		b := a.As16()
		r, refused := classifyAddr(netip.AddrFrom4([4]byte(b[12:16])))
		if refused {
			r.Name = "NAT64 (RFC 6052) of " + r.Name
		}
		return r, refused
	}
	if r, ok := lookupRange(a); ok {
		return r, true
	}
	if a.Is6() && !prefixGlobalUnicast.Contains(a) {
		return notGlobalUnicast, true
	}
	return AddrRange{}, false
}
