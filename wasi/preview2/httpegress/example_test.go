package httpegress_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/kobako/kobako/egress"
	"github.com/kobako/kobako/wasi/preview2"
	"github.com/kobako/kobako/wasi/preview2/httpegress"
)

// A component gets the network only through the policy: here api.example.com and nothing
// else. The sender goes into the HTTPConfig each instance's store is bound with
// (preview2.Bind(store, cfg, preview2.WithHTTP(hc))); a request to any other host answers HTTP-request-denied, and
// is logged.
func ExampleNew() {
	pol, err := egress.NewPolicy(egress.PolicyConfig{AllowHosts: []string{"api.example.com"}})
	if err != nil {
		panic(err)
	}
	sender := httpegress.New(httpegress.Config{Policy: pol, Logger: discardLogger()})
	hc := preview2.HTTPConfig{Send: sender.Send}

	// What a guest's outgoing-handler.handle to another host gets:
	u, _ := url.Parse("https://internal.example.org/admin")
	_, err = hc.Send(context.Background(), &http.Request{Method: "GET", URL: u, Header: http.Header{}, Body: http.NoBody}, egress.SendOptions{})
	fmt.Println(preview2.ErrorCodeOf(err))
	// Output: HTTP-request-denied
}
