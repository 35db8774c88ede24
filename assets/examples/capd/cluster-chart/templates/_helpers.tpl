{{/* The cluster's name: the release's, which the engine sets to the ManagedCluster's. */}}
{{- define "capd-cluster.name" -}}
{{- .Release.Name -}}
{{- end -}}

{{/* Labels on every object of the cluster. */}}
{{- define "capd-cluster.labels" -}}
cluster.x-k8s.io/cluster-name: {{ include "capd-cluster.name" . }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}
