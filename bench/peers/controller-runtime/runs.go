package main

import (
	"context"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var (
	runKind      = schema.GroupVersionKind{Group: "pipelines.slipway.dev", Version: "v1beta1", Kind: "Run"}
	pipelineKind = schema.GroupVersionKind{Group: "pipelines.slipway.dev", Version: "v1beta1", Kind: "Pipeline"}
	workflowKind = schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "Workflow"}
)

// The annotation naming a Workflow's Run (`Run/<namespace>/<name>`), as Slipway's argo backend writes it.
const ownerAnnotation = "pipelines.slipway.dev/owner"

func unstructuredOf(kind schema.GroupVersionKind) *unstructured.Unstructured {
	object := &unstructured.Unstructured{}
	object.SetGroupVersionKind(kind)
	return object
}

// submit is the peer of Slipway's argo Run path: a Run whose status is not of its generation gets its
// Pipeline read from the cache, a Workflow (a DAG of the Pipeline's steps with the Run's parameters,
// named and annotated as Slipway's) applied server-side, and one status write naming the Workflow. A Run
// whose status is current costs the cache read only. The Workflows are watched (mapped back to their Run
// by the owner annotation), as Slipway's Run controller watches them for completion.
type submit struct {
	client client.Client
	writes *atomic.Int64
}

func (s *submit) Reconcile(ctx context.Context, request reconcile.Request) (reconcile.Result, error) {
	run := unstructuredOf(runKind)
	if err := s.client.Get(ctx, request.NamespacedName, run); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	observed, found, _ := unstructured.NestedInt64(run.Object, "status", "observedGeneration")
	if found && observed == run.GetGeneration() {
		return reconcile.Result{}, nil
	}
	pipelineName, _, _ := unstructured.NestedString(run.Object, "spec", "pipeline")
	pipeline := unstructuredOf(pipelineKind)
	if err := s.client.Get(ctx, types.NamespacedName{Namespace: request.Namespace, Name: pipelineName}, pipeline); err != nil {
		return reconcile.Result{}, err
	}
	workflow := workflowOf(run, pipeline)
	if err := s.client.Patch(ctx, workflow, client.Apply, client.FieldOwner("bench-peer"), client.ForceOwnership); err != nil {
		return reconcile.Result{}, err
	}
	s.writes.Add(1)
	status := unstructuredOf(runKind)
	status.SetName(request.Name)
	status.SetNamespace(request.Namespace)
	provider, _, _ := unstructured.NestedString(run.Object, "spec", "provider")
	status.Object["status"] = map[string]any{
		"observedGeneration": run.GetGeneration(),
		"provider":           map[string]any{"name": request.Namespace + "/" + provider, "id": workflow.GetName()},
	}
	if err := s.client.Status().Patch(ctx, status, client.Apply, client.FieldOwner("bench-peer"), client.ForceOwnership); err != nil {
		return reconcile.Result{}, err
	}
	s.writes.Add(1)
	return reconcile.Result{}, nil
}

// workflowOf renders the Run's Workflow: one DAG task and one container template per Pipeline step.
func workflowOf(run, pipeline *unstructured.Unstructured) *unstructured.Unstructured {
	image, _, _ := unstructured.NestedString(pipeline.Object, "spec", "image")
	steps, _, _ := unstructured.NestedSlice(pipeline.Object, "spec", "steps")
	parameters, _, _ := unstructured.NestedSlice(run.Object, "spec", "parameters")
	tasks := make([]any, 0, len(steps))
	templates := make([]any, 0, len(steps)+1)
	for _, item := range steps {
		step, _ := item.(map[string]any)
		name, _ := step["name"].(string)
		task := map[string]any{"name": name, "template": "step-" + name}
		if dependsOn, ok := step["dependsOn"]; ok {
			task["dependencies"] = dependsOn
		}
		tasks = append(tasks, task)
		container := map[string]any{"image": image}
		if args, ok := step["args"]; ok {
			container["args"] = args
		}
		templates = append(templates, map[string]any{"name": "step-" + name, "container": container})
	}
	templates = append([]any{map[string]any{"name": "pipeline", "dag": map[string]any{"tasks": tasks}}}, templates...)
	workflow := unstructuredOf(workflowKind)
	workflow.SetNamespace(run.GetNamespace())
	workflow.SetName(run.GetNamespace() + "." + run.GetName())
	workflow.SetLabels(map[string]string{
		"pipelines.slipway.dev/kind": "Run",
		"pipelines.slipway.dev/name": run.GetName(),
	})
	workflow.SetAnnotations(map[string]string{ownerAnnotation: "Run/" + run.GetNamespace() + "/" + run.GetName()})
	workflow.Object["spec"] = map[string]any{
		"entrypoint": "pipeline",
		"arguments":  map[string]any{"parameters": parameters},
		"templates":  templates,
	}
	return workflow
}

// runOfWorkflow maps a Workflow to the Run its owner annotation names (none for another kind's).
func runOfWorkflow(_ context.Context, workflow client.Object) []reconcile.Request {
	parts := strings.Split(workflow.GetAnnotations()[ownerAnnotation], "/")
	if len(parts) != 3 || parts[0] != "Run" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: parts[1], Name: parts[2]}}}
}

// withoutSpec drops a cached Workflow's spec and managed fields: the Run needs its status and
// annotations only (Slipway caches Workflows without their spec too).
func withoutSpec(object any) (any, error) {
	if workflow, ok := object.(*unstructured.Unstructured); ok {
		delete(workflow.Object, "spec")
		workflow.SetManagedFields(nil)
	}
	return object, nil
}
