// Command wordcount is a function package with one tool, count, which counts the words in a text.
package main

import (
	"context"
	"strings"

	"github.com/kobako/kobako/subako/sdk"
)

type countIn struct {
	Text string `json:"text" jsonschema:"description=The text to count words in."`
}

func count(_ context.Context, in countIn) (int, error) {
	return len(strings.Fields(in.Text)), nil
}

var pkg = &sdk.Package{
	Name:        "wordcount",
	Description: "Counts words.",
	Version:     "0.1.0",
	Tools:       []sdk.ToolDef{sdk.Tool("count", "Count the words in a text.", count)},
}

func main() { pkg.Main() }
