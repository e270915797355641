// Command jsonline is the floor a tools/call of an SDK package is measured against: it reads one
// JSON-RPC request line, decodes it with encoding/json, and writes the greet tool's answer, with no
// SDK, no schemas and no checks beyond what decoding does.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			Name string `json:"name"`
		} `json:"arguments"`
	} `json:"params"`
}

type text struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type answer struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  struct {
		ResultType string `json:"resultType"`
		Content    []text `json:"content"`
	} `json:"result"`
}

func main() {
	line, err := bufio.NewReader(os.Stdin).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		os.Exit(1)
	}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		os.Exit(1)
	}
	a := answer{JSONRPC: "2.0", ID: req.ID}
	a.Result.ResultType = "complete"
	a.Result.Content = []text{{Type: "text", Text: "Hello, " + req.Params.Arguments.Name + "!"}}
	b, err := json.Marshal(a)
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}
