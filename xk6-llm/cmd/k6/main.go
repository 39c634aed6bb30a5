// Command k6 is k6 with the k6/x/llm extension built in: what `xk6 build --with` generates.
package main

import (
	k6cmd "go.k6.io/k6/cmd"

	_ "github.com/k6-llm-capacity/xk6-llm"
)

func main() {
	k6cmd.Execute()
}
