package llm

import (
	"time"

	"go.k6.io/k6/metrics"
)

// clientHealth is what the load generator knew of itself when a request ended.
type clientHealth struct {
	readLag    optional // ms: the longest the request's bytes waited in the socket
	cpuPerCore optional // s: the process's CPU time so far over its cores
}

// clientSamples are the llm_client_* samples of one request.
func clientSamples(ms requestMetrics, h clientHealth, tm metrics.TagsAndMeta, t time.Time) []metrics.Sample {
	var out []metrics.Sample
	for _, s := range []struct {
		key string
		v   optional
	}{{keyReadLag, h.readLag}, {keyCPUSeconds, h.cpuPerCore}} {
		if s.v.ok {
			out = append(out, metrics.Sample{
				TimeSeries: metrics.TimeSeries{Metric: ms[s.key], Tags: tm.Tags},
				Time:       t,
				Metadata:   tm.Metadata,
				Value:      s.v.value,
			})
		}
	}
	return out
}

// recordSamples turns one record into its llm_* samples, tagged with tags (the VU's tags and the
// request's) and stamped at t. A completed request gives its figures; a failed one only
// llm_request_ok 0 and llm_errors 1 tagged error_kind, with the message as metadata: unbounded
// text must never become a tag, and so never a Prometheus label. Failures never enter latency
// Trends. A request judged against params.slo adds its llm_goodput sample, 0 for a failure; one whose
// usage said how many prompt tokens were cached adds its llm_cached_tokens sample.
func recordSamples(ms requestMetrics, r *Record, tm metrics.TagsAndMeta, t time.Time) []metrics.Sample {
	sample := func(key string, tags *metrics.TagSet, meta map[string]string, v float64) metrics.Sample {
		return metrics.Sample{
			TimeSeries: metrics.TimeSeries{Metric: ms[key], Tags: tags},
			Time:       t,
			Metadata:   meta,
			Value:      v,
		}
	}
	base := tm.Tags
	if r.Outcome == outcomeErrored {
		// error_kind goes on llm_errors only: on the Rate it would split each cell's success
		// ratio into one always-zero series per kind.
		meta := tm.Metadata
		if r.ErrorMessage != "" {
			meta = make(map[string]string, len(tm.Metadata)+1)
			for k, v := range tm.Metadata {
				meta[k] = v
			}
			meta[metaErrorMessage] = r.ErrorMessage
		}
		out := []metrics.Sample{
			sample(keyRequestOk, base, tm.Metadata, 0),
			sample(keyErrors, base.With(tagErrorKind, r.ErrorKind), meta, 1),
		}
		if r.Goodput != nil {
			out = append(out, sample(keyGoodput, base, tm.Metadata, 0))
		}
		return out
	}
	out := make([]metrics.Sample, 0, 12+len(r.ITLMs))
	add := func(key string, v float64) { out = append(out, sample(key, base, tm.Metadata, v)) }
	add(keyRequestOk, 1)
	if r.Goodput != nil {
		add(keyGoodput, boolValue(*r.Goodput))
	}
	add(keyTTFT, r.TTFTMs)
	if r.TTFCMs.ok {
		add(keyTTFC, r.TTFCMs.value)
	}
	add(keyE2E, r.E2EMs)
	for _, itl := range r.ITLMs {
		add(keyITL, itl)
	}
	if r.TPOTMs.ok {
		add(keyTPOT, r.TPOTMs.value)
	}
	if r.DecodeSpeed.ok {
		add(keyDecodeSpeed, r.DecodeSpeed.value)
	}
	if r.PrefillSpeed.ok {
		add(keyPrefillSpeed, r.PrefillSpeed.value)
	}
	out = append(out,
		sample(keyInputTokens, base.With(tagTokenSource, r.InputTokenSource), tm.Metadata, float64(r.InputTokens)),
		sample(keyOutputTokens, base.With(tagTokenSource, r.OutputTokenSource), tm.Metadata, float64(r.OutputTokens)))
	// Only when the server reported it: with llm_input_tokens beside it, cached / input is the
	// prefix-cache hit rate, and a server that never reports it leaves no series at all.
	if r.CachedTokens.ok {
		add(keyCachedTokens, r.CachedTokens.value)
	}
	return out
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
