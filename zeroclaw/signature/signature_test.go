package signature

import (
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

const testManifest = `
name = "test-plugin"
version = "0.1.0"
description = "A test plugin"
wasm_path = "plugin.wasm"
capabilities = ["tool"]
permissions = []
`

func newKey(t testing.TB) (ed25519.PrivateKey, string) {
	t.Helper()
	priv, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return priv, PublicKeyHex(priv.Public().(ed25519.PublicKey))
}

func TestSignVerify(t *testing.T) {
	priv, pub := newKey(t)
	sig, err := Sign(testManifest, priv)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(sig, "=+/") || len(sig) != 86 {
		t.Errorf("signature %q is not unpadded base64url of 64 bytes", sig)
	}
	if res := Verify(testManifest, sig, pub, []string{pub}); res.Status != StatusValid || res.PublisherKey != pub {
		t.Fatalf("Verify = %+v", res)
	}
	// Keys compare trimmed and case-insensitively.
	if res := Verify(testManifest, sig, " "+strings.ToUpper(pub)+"\n", []string{"  " + pub}); res.Status != StatusValid || res.PublisherKey != pub {
		t.Errorf("Verify with an upper-case key = %+v", res)
	}
	// Adding the fields to the manifest does not change what is signed.
	withFields := strings.Replace(testManifest, "wasm_path", "signature = \""+sig+"\"\npublisher_key = \""+pub+"\"\nwasm_path", 1)
	if res := Verify(withFields, sig, pub, []string{pub}); res.Status != StatusValid {
		t.Errorf("Verify with the fields present = %+v", res)
	}
}

func TestVerify_Invalid(t *testing.T) {
	priv, pub := newKey(t)
	_, otherPub := newKey(t)
	sig, _ := Sign(testManifest, priv)
	sigBytes, _ := DecodeSignature(sig)
	tests := []struct {
		name, text, sig, key string
		trusted              []string
		status               Status
		reason               string
	}{
		{"untrusted before crypto", testManifest, "!!not base64!!", "zz", nil, StatusUntrusted, ""},
		{"tampered", strings.Replace(testManifest, "0.1.0", "0.2.0", 1), sig, pub, []string{pub}, StatusInvalid, "Ed25519 signature verification failed"},
		{"wrong key", testManifest, sig, otherPub, []string{otherPub}, StatusInvalid, "Ed25519 signature verification failed"},
		{"odd hex", testManifest, sig, "abc", []string{"abc"}, StatusInvalid, "invalid publisher key: hex string must have even length"},
		{"bad hex", testManifest, sig, "zz", []string{"zz"}, StatusInvalid, "invalid publisher key: hex decode"},
		{"short key", testManifest, sig, "abcd", []string{"abcd"}, StatusInvalid, "Ed25519 signature verification failed"},
		{"padded signature", testManifest, base64.URLEncoding.EncodeToString(sigBytes), pub, []string{pub}, StatusInvalid, "invalid signature encoding: base64url decode error"},
		{"std alphabet", testManifest, strings.NewReplacer("-", "+", "_", "/").Replace(sig) + "+", pub, []string{pub}, StatusInvalid, "invalid signature encoding"},
		{"line break", testManifest, sig[:40] + "\n" + sig[40:], pub, []string{pub}, StatusInvalid, "invalid signature encoding"},
		{"short signature", testManifest, "badsignature", pub, []string{pub}, StatusInvalid, "Ed25519 signature verification failed"},
		{"malformed manifest", "name = \"unterminated", sig, pub, []string{pub}, StatusInvalid, "invalid manifest: invalid TOML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Verify(tt.text, tt.sig, tt.key, tt.trusted)
			if res.Status != tt.status || !strings.Contains(res.Reason, tt.reason) {
				t.Fatalf("Verify = %+v, want %v %q", res, tt.status, tt.reason)
			}
		})
	}
}

// The signature matrix: unsigned / untrusted / invalid / valid in each mode.
func TestEnforce_Matrix(t *testing.T) {
	priv, pub := newKey(t)
	_, stranger := newKey(t)
	sig, _ := Sign(testManifest, priv)
	ptr := func(s string) *string { return &s }
	cases := map[string]struct {
		sig, key *string
		trusted  []string
	}{
		"unsigned":       {nil, nil, []string{pub}},
		"no key":         {ptr(sig), nil, []string{pub}},
		"untrusted":      {ptr(sig), ptr(pub), []string{stranger}},
		"invalid":        {ptr("badsignature"), ptr(pub), []string{pub}},
		"valid":          {ptr(sig), ptr(pub), []string{pub}},
		"empty is a sig": {ptr(""), ptr(pub), []string{pub}},
	}
	type want struct {
		status  Status
		err     error
		warning bool
	}
	expect := map[Mode]map[string]want{
		ModeDisabled: {
			"unsigned": {StatusUnsigned, nil, false}, "no key": {StatusUnsigned, nil, false}, "untrusted": {StatusUnsigned, nil, false},
			"invalid": {StatusUnsigned, nil, false}, "valid": {StatusUnsigned, nil, false}, "empty is a sig": {StatusUnsigned, nil, false},
		},
		ModePermissive: {
			"unsigned": {StatusUnsigned, nil, true}, "no key": {StatusUnsigned, nil, true}, "untrusted": {StatusUntrusted, nil, true},
			"invalid": {StatusInvalid, nil, true}, "valid": {StatusValid, nil, false}, "empty is a sig": {StatusInvalid, nil, true},
		},
		ModeStrict: {
			"unsigned": {StatusUnsigned, ErrUnsignedPlugin, false}, "no key": {StatusUnsigned, ErrUnsignedPlugin, false},
			"untrusted": {StatusUntrusted, ErrUntrustedPublisher, false}, "invalid": {StatusInvalid, ErrSignatureInvalid, false},
			"valid": {StatusValid, nil, false}, "empty is a sig": {StatusInvalid, ErrSignatureInvalid, false},
		},
	}
	for mode, rows := range expect {
		for name, w := range rows {
			c := cases[name]
			t.Run(mode.String()+"/"+name, func(t *testing.T) {
				res, err := Enforce("test", testManifest, c.sig, c.key, c.trusted, mode)
				if !errors.Is(err, w.err) || (w.err == nil) != (err == nil) {
					t.Fatalf("err = %v, want %v", err, w.err)
				}
				if res.Status != w.status || (res.Warning != "") != w.warning {
					t.Fatalf("result = %+v, want %v warning=%v", res, w.status, w.warning)
				}
			})
		}
	}
}

func TestEnforce_Messages(t *testing.T) {
	_, pub := newKey(t)
	key := pub
	_, err := Enforce("p", testManifest, nil, nil, nil, ModeStrict)
	if err == nil || err.Error() != "plugin 'p' is unsigned and signature verification is required" {
		t.Errorf("unsigned: %v", err)
	}
	sig := EncodeSignature(make([]byte, 64))
	_, err = Enforce("p", testManifest, &sig, &key, nil, ModeStrict)
	if err == nil || err.Error() != "plugin 'p' signed by untrusted publisher key '"+pub+"'" {
		t.Errorf("untrusted: %v", err)
	}
	sig = "x"
	_, err = Enforce("p", testManifest, &sig, &key, []string{pub}, ModeStrict)
	if err == nil || !strings.HasPrefix(err.Error(), "invalid plugin signature: plugin 'p': invalid signature encoding") {
		t.Errorf("invalid: %v", err)
	}
}

// A signature or key that does not decode is reported as malformed, under a trusted key or not,
// in either enforcing mode; the reference's trust-first order would call it untrusted.
func TestEnforce_Malformed(t *testing.T) {
	_, pub := newKey(t)
	good := EncodeSignature(make([]byte, 64))
	tests := []struct{ name, sig, key, want string }{
		{"not base64", "!!!notbase64", pub, "malformed signature: base64url decode error"},
		{"short", EncodeSignature([]byte("abc")), pub, "malformed signature: 3 bytes, want 64"},
		{"key not hex", good, "zz", "malformed publisher_key: hex decode"},
		{"short key", good, "abcd", "malformed publisher_key: publisher key is 2 bytes, want 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Enforce("p", testManifest, &tt.sig, &tt.key, nil, ModePermissive)
			if err != nil || res.Status != StatusInvalid || !strings.HasPrefix(res.Reason, tt.want) || res.Warning != "plugin signature invalid; loading in permissive mode" {
				t.Errorf("permissive: %+v %v, want invalid %q", res, err, tt.want)
			}
			if _, err := Enforce("p", testManifest, &tt.sig, &tt.key, nil, ModeStrict); !errors.Is(err, ErrSignatureInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("strict: %v", err)
			}
		})
	}
}

func TestModes(t *testing.T) {
	for in, want := range map[string]Mode{"strict": ModeStrict, "STRICT": ModeStrict, "Permissive": ModePermissive, "disabled": ModeDisabled} {
		if m, ok := ParseMode(in); !ok || m != want {
			t.Errorf("ParseMode(%q) = %v %v", in, m, ok)
		}
		if m, w := ResolveMode(in); m != want || w != "" {
			t.Errorf("ResolveMode(%q) = %v %q", in, m, w)
		}
	}
	for _, in := range []string{"nonsense", "sttict", "", " strict"} {
		if _, ok := ParseMode(in); ok {
			t.Errorf("ParseMode(%q) accepted", in)
		}
		if m, w := ResolveMode(in); m != ModeStrict || !strings.Contains(w, "failing safe to strict") {
			t.Errorf("ResolveMode(%q) = %v %q, want strict with a warning", in, m, w)
		}
	}
	var zero Mode
	if zero != ModeDisabled {
		t.Error("the zero Mode must be disabled, the reference default")
	}
}

func TestSignManifest(t *testing.T) {
	priv, pub := newKey(t)
	tests := []struct{ name, in string }{
		{"plain", "name = \"p\"\nversion = \"1\"\ncapabilities = [\"tool\"]\n\n# schema\n[config_schema]\ntype = \"object\"\n"},
		{"resign replaces", "name = \"p\"\n# old\nsignature = \"old\"\npublisher_key = \"00\"\nversion = \"1\"\n"},
		{"no final newline", "name = \"p\"\nversion = \"1\""},
		{"crlf", "name = \"p\"\r\nversion = \"1\"\r\n"},
		{"bom", "\xef\xbb\xbfname = \"p\"\n"},
		{"only tables", "[meta]\nx = 1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			signed, err := SignManifest(tt.in, priv)
			if err != nil {
				t.Fatal(err)
			}
			c0, _ := Canonicalize(tt.in)
			c1, err := Canonicalize(signed)
			if err != nil || string(c0) != string(c1) {
				t.Fatalf("signing changed the canonical bytes:\n%q\n%q (%v)", c0, c1, err)
			}
			if strings.Contains(tt.in, "\r\n") && strings.Contains(strings.ReplaceAll(signed, "\r\n", ""), "\n") {
				t.Errorf("mixed line endings in %q", signed)
			}
			if !strings.Contains(signed, "publisher_key = \""+pub+"\"") || strings.Contains(signed, "\"old\"") || strings.Contains(signed, "# old") {
				t.Errorf("signed text = %q", signed)
			}
		})
	}
	if _, err := SignManifest("name = ", priv); err == nil {
		t.Error("signed malformed TOML")
	}
	if _, err := SignManifest(testManifest, priv[:10]); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("short key: %v", err)
	}
}

// Signing then verifying succeeds for every manifest and key, and any
// change to the covered text is detected.
func TestSignVerify_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		text := genManifest().Draw(t, "manifest")
		seed := rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "seed")
		priv := ed25519.NewKeyFromSeed(seed)
		pub := PublicKeyHex(priv.Public().(ed25519.PublicKey))
		signed, err := SignManifest(text, priv)
		if err != nil {
			t.Fatalf("SignManifest(%q): %v", text, err)
		}
		sig, err := Sign(text, priv)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(signed, "signature = \""+sig+"\"") {
			t.Fatalf("SignManifest signature differs from Sign's")
		}
		if res := Verify(signed, sig, pub, []string{pub}); res.Status != StatusValid {
			t.Fatalf("Verify(signed) = %+v", res)
		}
		tampered := signed + "\nextra = 1\n"
		if res := Verify(tampered, sig, pub, []string{pub}); res.Status != StatusInvalid {
			t.Fatalf("tampered manifest verified: %+v", res)
		}
	})
}

func TestKeys_RoundTrip_Property(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		priv := ed25519.NewKeyFromSeed(rapid.SliceOfN(rapid.Byte(), 32, 32).Draw(t, "seed"))
		pemBytes, err := MarshalPrivateKey(priv)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParsePrivateKey(pemBytes)
		if err != nil || !back.Equal(priv) {
			t.Fatalf("PEM round trip: %v", err)
		}
		der, _ := x509.MarshalPKCS8PrivateKey(priv)
		back, err = ParsePrivateKey(der)
		if err != nil || !back.Equal(priv) {
			t.Fatalf("DER round trip: %v", err)
		}
		pub, err := DecodePublicKey(PublicKeyHex(priv.Public().(ed25519.PublicKey)))
		if err != nil || !pub.Equal(priv.Public()) {
			t.Fatalf("public key round trip: %v", err)
		}
	})
}

// ring, which the reference uses, writes PKCS#8 v2 with the public key.
func TestParsePrivateKey_PKCS8v2(t *testing.T) {
	priv, _ := newKey(t)
	seed, _ := asn1.Marshal(priv.Seed())
	v2 := oneAsymmetricKey{
		Version:    1,
		Algorithm:  pkix.AlgorithmIdentifier{Algorithm: oidEd25519},
		PrivateKey: seed,
		PublicKey:  asn1.BitString{Bytes: priv.Public().(ed25519.PublicKey), BitLength: 256},
	}
	der, err := asn1.Marshal(v2)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParsePrivateKey(der)
	if err != nil || !got.Equal(priv) {
		t.Fatalf("ParsePrivateKey(v2) = %v", err)
	}
	other, _ := newKey(t)
	v2.PublicKey.Bytes = other.Public().(ed25519.PublicKey)
	der, _ = asn1.Marshal(v2)
	if _, err := ParsePrivateKey(der); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("mismatched embedded public key accepted: %v", err)
	}
}

func TestParsePrivateKey_Errors(t *testing.T) {
	for _, in := range []string{"", "garbage", "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"} {
		if _, err := ParsePrivateKey([]byte(in)); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ParsePrivateKey(%q) = %v", in, err)
		}
	}
	if _, err := DecodePublicKey("abcd"); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("DecodePublicKey(short) = %v", err)
	}
}
