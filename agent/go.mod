module github.com/k6-llm-capacity/agent

go 1.25.0
