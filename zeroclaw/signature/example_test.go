package signature_test

import (
	"crypto/ed25519"
	"fmt"

	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/signature"
)

func ExampleSignManifest() {
	priv := ed25519.NewKeyFromSeed(make([]byte, 32)) // use signature.GenerateKey in real life
	pub := signature.PublicKeyHex(priv.Public().(ed25519.PublicKey))
	text := "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n\n[config_schema.properties.signature]\ntype = \"string\"\n"

	signed, err := signature.SignManifest(text, priv)
	if err != nil {
		panic(err)
	}
	m, _ := manifest.Parse([]byte(signed))
	res, err := signature.Enforce(m.Name, signed, m.Signature, m.PublisherKey, []string{pub}, signature.ModeStrict)
	fmt.Println(res.Status, err)
	_, err = signature.Enforce(m.Name, signed, m.Signature, m.PublisherKey, nil, signature.ModeStrict)
	fmt.Println(err)
	canonical, _ := signature.Canonicalize(signed)
	fmt.Printf("%q\n", canonical)
	// Output:
	// valid <nil>
	// plugin 'p' signed by untrusted publisher key '3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29'
	// "name = \"p\"\nversion = \"1\"\nwasm_path = \"p.wasm\"\ncapabilities = [\"tool\"]\n\n[config_schema.properties.signature]\ntype = \"string\""
}
