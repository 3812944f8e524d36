import { layout, nodeSize, type StepNode } from "./layout.ts";

/** The steps as boxes in layers, an arrow from each dependency to the step that needs it. */
export function StepGraph({ steps }: { steps: StepNode[] }) {
  const placed = layout(steps);
  const edgeCount = placed.edges.length;
  return (
    <div className="graph-scroll">
      <svg
        className="step-graph"
        width={placed.width}
        height={placed.height}
        viewBox={`0 0 ${placed.width} ${placed.height}`}
        role="img"
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
          <g
            key={node.name}
            transform={`translate(${node.x},${node.y})`}
            data-step={node.name}
            data-layer={node.layer}
          >
            <rect width={nodeSize.width} height={nodeSize.height} rx="8" className="node" />
            <text
              x={nodeSize.width / 2}
              y={nodeSize.height / 2}
              dominantBaseline="middle"
              textAnchor="middle"
            >
              {node.name.length > 20 ? `${node.name.slice(0, 19)}…` : node.name}
            </text>
          </g>
        ))}
      </svg>
    </div>
  );
}
