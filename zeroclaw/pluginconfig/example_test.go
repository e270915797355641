package pluginconfig_test

import (
	"fmt"

	"github.com/kobako/kobako/zeroclaw/instance"
	"github.com/kobako/kobako/zeroclaw/manifest"
	"github.com/kobako/kobako/zeroclaw/pluginconfig"
)

func ExampleResolve() {
	m, _ := manifest.Parse([]byte(`name = "tool-fixture"
version = "0.0.0"
wasm_path = "tool-fixture.wasm"
capabilities = ["tool"]
permissions = ["config_read"]

[config_schema]
"$schema" = "https://json-schema.org/draft/2020-12/schema"
type = "object"
additionalProperties = false
properties.label.type = "string"
properties.max_len.type = "integer"
properties.uppercase.type = "boolean"
properties.api_key = { type = "string", x-secret = true }
`))
	schema, err := pluginconfig.Compile(m)
	if err != nil {
		panic(err)
	}
	scope, _ := instance.PackageScope(m, manifest.CapabilityTool, instance.RequestedGrants(m))
	operator := map[string]string{"label": "masked", "uppercase": "true", "max_len": "5", "api_key": "s3cr3t"}
	res, err := pluginconfig.Resolve(m, schema, scope, pluginconfig.Values(operator))
	if err != nil {
		panic(err)
	}
	fmt.Println(res.PublicJSON())
	fmt.Println(res.Secret("api_key"))

	operator["max_len"] = "5.5"
	_, err = pluginconfig.Resolve(m, schema, scope, pluginconfig.Values(operator))
	fmt.Println(err)
	// Output:
	// {"label":"masked","max_len":5,"uppercase":true}
	// s3cr3t true
	// invalid plugin config: config property 'max_len' must be a JSON integer
}
