package manifest_test

import (
	"fmt"

	"github.com/kobako/kobako/zeroclaw/manifest"
)

func ExampleParse() {
	m, err := manifest.Parse([]byte(`name = "telegram"
version = "0.2.0"
wasm_path = "telegram.wasm"
capabilities = ["channel"]
permissions = ["http_client", "env_read", "file_read"]
provides = "telegram"
`))
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Name, m.Capabilities, m.Permissions)
	fmt.Println("inert:", m.InertPermissions())
	fmt.Println("kept:", m.Extra["provides"])
	// Output:
	// telegram [channel] [http_client config_read file_read]
	// inert: [file_read]
	// kept: telegram
}

func ExampleValidateShape() {
	m, _ := manifest.Parse([]byte("name = \"p\"\nversion = \"1\"\nwasm_path = \"../escape.wasm\"\ncapabilities = [\"tool\"]\n"))
	_, err := manifest.ValidateShape(m, ".")
	fmt.Println(err)
	// Output:
	// invalid manifest: plugin 'p' has an invalid `wasm_path` ("../escape.wasm"): it must be a relative path inside the plugin directory
}
