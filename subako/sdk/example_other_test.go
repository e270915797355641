//go:build !wasip1

package sdk_test

import (
	"context"
	"fmt"

	"github.com/kobako/kobako/subako/sdk"
)

// Off wasip1 there is no subako_http import, and Do says so with an error of kind abi.
func ExampleDo() {
	_, err := sdk.Do(context.Background(), &sdk.Request{URL: "https://api.example.com/orders"})
	fmt.Println(sdk.KindOf(err))
	// Output: abi
}
