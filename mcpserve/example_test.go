package mcpserve_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kobako/kobako/mcpserve"
)

// Serve the embedded example package and call its tool with the MCP SDK's own client, in process.
// `kobako mcp` does the same over stdio (ServeStdio) or HTTP (Handler).
func ExampleNew() {
	ctx := context.Background()
	srv, err := mcpserve.New(ctx, mcpserve.Options{Packages: []mcpserve.PackageSpec{{Path: mcpserve.ExamplePackage}}})
	if err != nil {
		panic(err)
	}
	defer srv.Close(ctx)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.MCPServer().Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello__greet", Arguments: map[string]string{"name": "Ada"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(srv.Tools()[0].Name, res.Content[0].(*mcp.TextContent).Text)
	// Output: hello__greet Hello, Ada!
}
