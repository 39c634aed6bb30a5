package llm

import (
	"context"
	"strconv"
	"time"

	"go.k6.io/k6/lib"
	"go.k6.io/k6/metrics"
)

// sampleTimes is what the request measured for its http_* samples.
type sampleTimes struct {
	duration   time.Duration // start to end of stream
	waiting    time.Duration // request written to first response byte
	connecting time.Duration // TCP connect; 0 on a reused connection
	end        time.Time     // the samples' timestamp
}

// httpSamples are one request's http_* samples, tagged as k6/http tags its own (the VU's tags,
// method, url, name, status, expected_response), then params.tags.
func httpSamples(state *lib.State, base metrics.TagsAndMeta, p *params,
	cleanURL string, status int, failed bool, t sampleTimes,
) []metrics.Sample {
	if state.BuiltinMetrics == nil {
		return nil
	}
	tm := base.Clone()
	enabled := state.Options.SystemTags
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagMethod, p.method)
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagURL, cleanURL)
	if _, named := tm.Tags.Get(metrics.TagName.String()); !named {
		tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagName, cleanURL)
	}
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagStatus, strconv.Itoa(status))
	tm.SetSystemTagOrMetaIfEnabled(enabled, metrics.TagExpectedResponse,
		strconv.FormatBool(status >= 200 && status <= 399))
	for _, kv := range p.tags {
		tm.SetTag(kv[0], kv[1])
	}

	bm := state.BuiltinMetrics
	failedValue := 0.0
	if failed {
		failedValue = 1
	}
	sample := func(m *metrics.Metric, v float64) metrics.Sample {
		return metrics.Sample{
			TimeSeries: metrics.TimeSeries{Metric: m, Tags: tm.Tags},
			Time:       t.end,
			Metadata:   tm.Metadata,
			Value:      v,
		}
	}
	return []metrics.Sample{
		sample(bm.HTTPReqs, 1),
		sample(bm.HTTPReqDuration, metrics.D(t.duration)),
		sample(bm.HTTPReqWaiting, metrics.D(t.waiting)),
		sample(bm.HTTPReqConnecting, metrics.D(t.connecting)),
		sample(bm.HTTPReqFailed, failedValue),
	}
}

// push sends a request's samples to k6 in one container. Nothing is pushed once the VU's context
// has ended.
func push(ctx context.Context, state *lib.State, samples []metrics.Sample, t time.Time) {
	if state.Samples == nil || len(samples) == 0 {
		return
	}
	metrics.PushIfNotDone(ctx, state.Samples, metrics.ConnectedSamples{
		Samples: samples,
		Tags:    samples[0].Tags,
		Time:    t,
	})
}
