import type { KeyboardEvent } from "react";
import type { Tone } from "../components/phaseTone.ts";
import { layout, nodeSize, type PlacedNode, type StepNode } from "./layout.ts";

/** What a node shows under its step's name, and its colour (the badges' tones). */
export interface NodeState {
  label: string;
  tone: Tone;
}

export interface StepGraphProps {
  steps: StepNode[];
  /** Each step's state, if the graph shows one: written in its box, coloured, and in its accessible name. */
  stateOf?: (step: string) => NodeState | undefined;
  /** Makes each node a button choosing its step. */
  onSelect?: (step: string) => void;
  /** The chosen step (pressed). */
  selected?: string;
}

const shortened = (text: string) => (text.length > 20 ? `${text.slice(0, 19)}…` : text);

/**
 * The steps as boxes in layers, an arrow from each dependency to the step that needs it. A picture
 * (role img) unless its nodes can be chosen: then a group of buttons, each named `<step>: <state>`.
 */
export function StepGraph({ steps, stateOf, onSelect, selected }: StepGraphProps) {
  const placed = layout(steps);
  const edgeCount = placed.edges.length;
  return (
    <div className="graph-scroll">
      <svg
        className="step-graph"
        width={placed.width}
        height={placed.height}
        viewBox={`0 0 ${placed.width} ${placed.height}`}
        role={onSelect ? "group" : "img"}
        aria-label={`Step graph: ${steps.length} steps, ${edgeCount} dependencies`}
      >
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="10"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto"
          >
            <path d="M0,0 L10,5 L0,10 z" className="arrow-head" />
          </marker>
        </defs>
        {placed.edges.map((edge) => (
          <path
            key={`${edge.from}->${edge.to}`}
            d={edge.path}
            className="edge"
            markerEnd="url(#arrow)"
            data-edge={`${edge.from}->${edge.to}`}
          />
        ))}
        {placed.nodes.map((node) => (
          <GraphNode
            key={node.name}
            node={node}
            state={stateOf?.(node.name)}
            onSelect={onSelect}
            selected={selected === node.name}
          />
        ))}
      </svg>
    </div>
  );
}

function GraphNode({
  node,
  state,
  onSelect,
  selected,
}: {
  node: PlacedNode;
  state: NodeState | undefined;
  onSelect: ((step: string) => void) | undefined;
  selected: boolean;
}) {
  const name = state ? `${node.name}: ${state.label}` : node.name;
  const choose = () => onSelect?.(node.name);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    choose();
  };
  const button = onSelect
    ? { role: "button", tabIndex: 0, "aria-pressed": selected, onClick: choose, onKeyDown }
    : {};
  const classes = ["graph-node", state ? `node-${state.tone}` : "", selected ? "node-selected" : ""];
  return (
    <g
      transform={`translate(${node.x},${node.y})`}
      className={classes.filter(Boolean).join(" ")}
      data-step={node.name}
      data-layer={node.layer}
      data-tone={state?.tone}
      aria-label={onSelect ? name : undefined}
      {...button}
    >
      <title>{name}</title>
      <rect width={nodeSize.width} height={nodeSize.height} rx="8" className="node" />
      <text
        x={nodeSize.width / 2}
        y={state ? nodeSize.height / 2 - 8 : nodeSize.height / 2}
        dominantBaseline="middle"
        textAnchor="middle"
      >
        {shortened(node.name)}
      </text>
      {state && (
        <text
          x={nodeSize.width / 2}
          y={nodeSize.height / 2 + 10}
          dominantBaseline="middle"
          textAnchor="middle"
          className="node-state"
        >
          {shortened(state.label)}
        </text>
      )}
    </g>
  );
}
