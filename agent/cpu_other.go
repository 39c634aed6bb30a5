//go:build !unix

package agent

// processCPUPerCore is not measured here: no llm_client_cpu_seconds samples.
func processCPUPerCore() (float64, bool) { return 0, false }
