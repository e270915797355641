package sdk_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/kobako/kobako/subako/sdk"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"description=Who to greet."`
}

type greetOut struct {
	Message string `json:"message"`
}

func greet(_ context.Context, in greetIn) (greetOut, error) {
	if in.Name == "" {
		return greetOut{}, errors.New("name must not be empty")
	}
	return greetOut{Message: "Hello, " + in.Name + "!"}, nil
}

// A package with one typed tool, served over in-memory stdio: the call that succeeds answers with
// structured output, and the one that fails answers with an isError result.
func Example() {
	pkg := &sdk.Package{
		Name:        "hello",
		Description: "Says hello.",
		Tools:       []sdk.ToolDef{sdk.Tool("greet", "Greet someone by name.", greet)},
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	stdin := strings.NewReader(
		`{"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` + meta + "}}\n" +
			`{"jsonrpc":"2.0","id":"call-2","method":"tools/call","params":{"name":"greet","arguments":{"name":""},` + meta + "}}\n")
	if err := pkg.Serve(context.Background(), stdin, os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":"call-1","result":{"resultType":"complete","content":[{"type":"text","text":"{\"message\":\"Hello, Ada!\"}"}],"structuredContent":{"message":"Hello, Ada!"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello","version":"0.0.0"}}}}
	// {"jsonrpc":"2.0","id":"call-2","result":{"resultType":"complete","content":[{"type":"text","text":"name must not be empty"}],"isError":true,"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"hello","version":"0.0.0"}}}}
}

// A tool's inputSchema comes from its Go input type.
func ExampleTool() {
	t := sdk.Tool("greet", "Greet someone by name.", greet)
	fmt.Println(string(t.InputSchema()))
	fmt.Println(string(t.OutputSchema()))
	// Output:
	// {"properties":{"name":{"type":"string","description":"Who to greet."}},"additionalProperties":false,"type":"object","required":["name"]}
	// {"properties":{"message":{"type":"string"}},"additionalProperties":false,"type":"object","required":["message"]}
}

// A tool that saved an image under /volume links it rather than inlining it.
func ExampleVolumeLink() {
	link, err := sdk.VolumeLink("/volume/tmp/my chart.png", "image/png")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(link.URI, link.Name)
	// Output: volume:///tmp/my%20chart.png my chart.png
}
