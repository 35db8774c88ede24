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
