{{/* The chart's name, or nameOverride. */}}
{{- define "hmc-tui.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The name of this release's objects, cluster-wide ones included:
fullnameOverride, else the release name when it contains the chart's name,
else <release>-<name>. At most 50 characters, so that the longest name made
from it (<fullname>-rollout-requests) stays within 63.
*/}}
{{- define "hmc-tui.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- $name := include "hmc-tui.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 50 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels of every object. */}}
{{- define "hmc-tui.labels" -}}
app.kubernetes.io/name: {{ include "hmc-tui.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: hmc-tui
{{- end }}

{{/* What selects this release's engine pods. */}}
{{- define "hmc-tui.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hmc-tui.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: engine
{{- end }}

{{/* The Lease the engine competes for (engine/claims.rs lease_name). */}}
{{- define "hmc-tui.leaseName" -}}
{{- if .Values.watchNamespace -}}
hmc-tui-engine.{{ .Values.watchNamespace }}
{{- else -}}
hmc-tui-engine
{{- end }}
{{- end }}

{{/*
The engine's image: <repository>@<digest> when image.digest is set (a
digest names one content for good, so it wins over the tag), else
<repository>:<tag>, the tag defaulting to the chart's appVersion.
*/}}
{{- define "hmc-tui.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}
{{- end }}

{{/*
The PromQL label matchers that pick this release's engines:
metrics.prometheusRule.selector, else the namespace and Service that a
ServiceMonitor's (and the prometheus.io annotation scrape config's)
targets are labelled with.
*/}}
{{- define "hmc-tui.metricsSelector" -}}
{{- if .Values.metrics.prometheusRule.selector -}}
{{ .Values.metrics.prometheusRule.selector }}
{{- else -}}
namespace="{{ .Release.Namespace }}",service="{{ include "hmc-tui.fullname" . }}-metrics"
{{- end }}
{{- end }}
