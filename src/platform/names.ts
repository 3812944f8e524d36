import type { ComponentName } from "../apis/platform/schemas.ts";

/** The in-cluster DNS name of a component's Service (and the name of its Component, workload, ...). */
export const serviceName = (platform: string, component: ComponentName) => `${platform}-${component}`;

/** The field manager the platform's controllers apply as (the operator's); a dry run of an update applies as it too. */
export const operatorFieldManager = "slipway-operator";
