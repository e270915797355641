// Command hello is an ABI 1 function package with two tools: greet, which answers with text, and
// echo, which answers with structured output beside its text rendering.
package main

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/kobako/kobako/subako/sdk"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"description=Who to greet."`
}

func (in greetIn) Validate() error {
	if strings.TrimSpace(in.Name) == "" {
		return errors.New("name must not be empty")
	}
	return nil
}

func greet(_ context.Context, in greetIn) (string, error) {
	return "Hello, " + in.Name + "!", nil
}

type echoIn struct {
	Message string `json:"message" jsonschema:"description=Text to send back."`
	Repeat  int    `json:"repeat,omitempty" jsonschema:"description=How many times to repeat it (1 to 10; default 1).,minimum=0,maximum=10"`
}

type echoOut struct {
	Message    string `json:"message" jsonschema:"description=The text repeated."`
	Characters int    `json:"characters" jsonschema:"description=Length of message in characters."`
}

func echo(_ context.Context, in echoIn) (echoOut, error) {
	n := in.Repeat
	if n == 0 {
		n = 1
	}
	if n < 0 || n > 10 {
		return echoOut{}, sdk.Errorf("repeat must be between 1 and 10, got %d", in.Repeat)
	}
	msg := strings.Repeat(in.Message, n)
	return echoOut{Message: msg, Characters: utf8.RuneCountInString(msg)}, nil
}

var pkg = &sdk.Package{
	Name:        "hello",
	Description: "Says hello, and echoes text back.",
	Version:     "1.0.0",
	Tools: []sdk.ToolDef{
		sdk.Tool("greet", "Greet someone by name.", greet),
		sdk.Tool("echo", "Echo a message back, optionally repeated, with its length.", echo),
	},
}

func main() { pkg.Main() }
