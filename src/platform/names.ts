import type { ComponentName } from "../apis/platform/schemas.ts";

/** The in-cluster DNS name of a component's Service (and the name of its Component, workload, ...). */
export const serviceName = (platform: string, component: ComponentName) => `${platform}-${component}`;
