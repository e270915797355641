package egress

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		class string
		addrs []string
		// name is a word the refusal must contain; "" means the address is allowed.
		name string
	}{
		{"loopback v4", []string{"127.0.0.1", "127.255.255.254", "127.1.2.3"}, "loopback"},
		{"loopback v6", []string{"::1"}, "loopback"},
		{"loopback mapped", []string{"::ffff:127.0.0.1"}, "IPv4-mapped loopback"},
		{"loopback NAT64", []string{"64:ff9b::127.0.0.1", "64:ff9b::7f00:1"}, "NAT64"},
		{"loopback compatible", []string{"::127.0.0.1"}, "IPv4-compatible"},
		{"private v4", []string{"10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255", "192.168.0.1", "192.168.255.255"}, "private-use"},
		{"private v6 (ULA)", []string{"fc00::1", "fd12:3456:789a::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"}, "unique local"},
		{"private mapped", []string{"::ffff:10.0.0.1", "::ffff:172.16.5.4", "::ffff:192.168.1.1"}, "IPv4-mapped private-use"},
		{"private NAT64", []string{"64:ff9b::10.0.0.1", "64:ff9b::192.168.1.1", "64:ff9b::ac10:1"}, "NAT64 (RFC 6052) of private-use"},
		{"link-local v4", []string{"169.254.0.1", "169.254.169.254"}, "link-local"},
		{"link-local v6", []string{"fe80::1", "febf::1"}, "link-local"},
		{"link-local mapped", []string{"::ffff:169.254.169.254"}, "IPv4-mapped link-local"},
		{"link-local NAT64", []string{"64:ff9b::169.254.169.254"}, "NAT64"},
		{"multicast v4", []string{"224.0.0.1", "239.255.255.250", "233.252.0.1"}, "multicast"},
		{"multicast v6", []string{"ff02::1", "ff05::1:3", "ff0e::1"}, "multicast"},
		{"multicast mapped", []string{"::ffff:224.0.0.251"}, "IPv4-mapped multicast"},
		{"unspecified v4", []string{"0.0.0.0", "0.1.2.3", "0.255.255.255"}, "this network"},
		{"unspecified v6", []string{"::"}, "unspecified"},
		{"unspecified mapped", []string{"::ffff:0.0.0.0"}, "IPv4-mapped this network"},
		{"CGNAT", []string{"100.64.0.1", "100.127.255.255", "100.100.100.200"}, "CGNAT"},
		{"CGNAT mapped", []string{"::ffff:100.64.0.1"}, "IPv4-mapped shared"},
		{"CGNAT NAT64", []string{"64:ff9b::100.64.0.1"}, "NAT64"},
		{"benchmarking v4", []string{"198.18.0.1", "198.19.255.255"}, "benchmarking"},
		{"benchmarking v6 (in IETF protocol assignments)", []string{"2001:2::1", "2001:2:0:ffff::1"}, "IETF protocol assignments"},
		{"documentation v4", []string{"192.0.2.1", "198.51.100.7", "203.0.113.255"}, "documentation"},
		{"documentation v6", []string{"2001:db8::1", "2001:db8:ffff::1", "3fff::1", "3fff:fff::1"}, "documentation"},
		{"documentation mapped", []string{"::ffff:192.0.2.1"}, "IPv4-mapped documentation"},
		{"reserved v4", []string{"240.0.0.1", "254.255.255.255"}, "reserved"},
		{"broadcast v4", []string{"255.255.255.255"}, "limited broadcast"},
		{"IETF protocol assignments v4", []string{"192.0.0.1", "192.0.0.9", "192.0.0.170"}, "IETF protocol assignments"},
		{"AS112 v4", []string{"192.31.196.1", "192.175.48.1"}, "AS112"},
		{"AS112 v6", []string{"2620:4f:8000::1"}, "AS112"},
		{"AMT v4", []string{"192.52.193.1"}, "AMT"},
		{"6to4 relay anycast v4", []string{"192.88.99.1"}, "6to4"},
		{"6to4 v6", []string{"2002::1", "2002:7f00:1::1", "2002:0808:0808::1"}, "6to4"},
		{"Teredo, ORCHID v6", []string{"2001::1", "2001:0:4136:e378::1", "2001:20::1", "2001:1ff::1"}, "IETF protocol assignments"},
		{"NAT64 local-use v6", []string{"64:ff9b:1::1", "64:ff9b:1:ffff::8.8.8.8"}, "local-use"},
		{"discard-only v6", []string{"100::1"}, "discard-only"},
		{"dummy prefix v6", []string{"100:0:0:1::1"}, "dummy"},
		{"SRv6 v6", []string{"5f00::1"}, "SRv6"},
		{"site-local v6", []string{"fec0::1", "feff::1"}, "site-local"},
		{"IPv4-translated v6", []string{"::ffff:0:8.8.8.8"}, "IPv4-translated"},
		{"outside 2000::/3", []string{"4000::1", "1::1", "8000::1", "e000::1", "fe00::1"}, "global unicast"},
		{"zone", []string{"fe80::1%eth0", "2606:4700:4700::1111%eth0"}, "zone"},
		{"public v4", []string{"1.1.1.1", "8.8.8.8", "93.184.215.14", "223.255.255.255", "1.0.0.0"}, ""},
		{"public v4 next to refused ranges", []string{"9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0", "126.255.255.255", "128.0.0.0",
			"169.253.255.255", "169.255.0.0", "172.15.255.255", "172.32.0.0", "192.0.1.255", "192.0.3.0", "192.167.255.255", "192.169.0.0",
			"198.17.255.255", "198.20.0.0", "198.51.99.255", "198.51.101.0", "203.0.112.255", "203.0.114.0", "223.255.255.254"}, ""},
		{"public v6", []string{"2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450:4001::1", "2001:200::1", "2620:4f:7fff::1", "3ffe::1"}, ""},
		{"public mapped", []string{"::ffff:8.8.8.8", "::ffff:1.1.1.1"}, ""},
		{"public NAT64", []string{"64:ff9b::8.8.8.8", "64:ff9b::5db8:d70e"}, ""},
	}
	for _, tt := range tests {
		for _, s := range tt.addrs {
			t.Run(tt.class+"/"+s, func(t *testing.T) {
				a := netip.MustParseAddr(s)
				err := CheckAddr(a)
				if tt.name == "" {
					if err != nil {
						t.Fatalf("CheckAddr(%s) = %v, want allowed", s, err)
					}
					return
				}
				if err == nil {
					t.Fatalf("CheckAddr(%s) allowed, want refused as %s", s, tt.name)
				}
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindForbiddenDestination || !errors.Is(err, ErrForbiddenDestination) {
					t.Fatalf("CheckAddr(%s) = %#v, want a forbidden_destination *Error", s, err)
				}
				if !strings.Contains(e.Message, tt.name) {
					t.Errorf("CheckAddr(%s) message %q does not name %q", s, e.Message, tt.name)
				}
				if !strings.Contains(e.Message, "RFC") {
					t.Errorf("CheckAddr(%s) message %q has no reference", s, e.Message)
				}
				if e.Addr != a {
					t.Errorf("CheckAddr(%s).Addr = %v", s, e.Addr)
				}
			})
		}
	}
}

func TestCheckAddr_Invalid(t *testing.T) {
	if err := CheckAddr(netip.Addr{}); !errors.Is(err, ErrForbiddenDestination) {
		t.Fatalf("CheckAddr(zero) = %v", err)
	}
}

// Every row of the table must be a canonical prefix with a name and a reference, and the
// IPv6 rows must not hide IPv4-mapped space (which CheckAddr unmaps before the lookup).
func TestRefusedRanges_Table(t *testing.T) {
	seen := map[netip.Prefix]bool{}
	for _, r := range RefusedRanges() {
		if !r.Prefix.IsValid() || r.Prefix != r.Prefix.Masked() {
			t.Errorf("%v is not a canonical prefix", r.Prefix)
		}
		if r.Name == "" || !strings.Contains(r.Ref, "RFC") {
			t.Errorf("%v lacks a name or an RFC reference", r.Prefix)
		}
		if seen[r.Prefix] {
			t.Errorf("%v listed twice", r.Prefix)
		}
		seen[r.Prefix] = true
		// The first and last address of each range are refused.
		first := r.Prefix.Addr()
		if CheckAddr(first) == nil {
			t.Errorf("first address %v of %v allowed", first, r.Prefix)
		}
	}
	// RefusedRanges returns a copy.
	rs := RefusedRanges()
	rs[0].Name = "changed"
	if RefusedRanges()[0].Name == "changed" {
		t.Error("RefusedRanges exposes the table")
	}
}
