/**
 * The PipelineJobs a Vertex Schedule starts: ListPipelineJobs filtered by the Schedule's name,
 * oldest first, from `since` (src/pipelines/events/scheduled.ts). A job cannot be changed after
 * its creation, so nothing is marked: the RunSchedule's records are the mark.
 */
import type { Client } from "../../kube/types.ts";
import type { ScheduledCompletion, ScheduledRuns } from "../events/scheduled.ts";
import type { OutboundPolicy } from "../outbound-policy.ts";
import { calling, vertexClientsAt } from "./clients.ts";
import {
  scheduledJobsPage,
  scheduledJobsRequest,
  type VertexJob,
  vertexScheduledCompletions,
} from "./requests.ts";
import { locationName } from "./settings.ts";

export function vertexScheduledRuns(client: Client, outbound: OutboundPolicy): ScheduledRuns {
  return {
    async completed(provider, scheduleName, wanted, since) {
      const clients = await vertexClientsAt(client, provider, outbound);
      const parent = locationName(clients.settings);
      const found: ScheduledCompletion[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < scheduledJobsPage.pages; page += 1) {
        const request = scheduledJobsRequest(parent, scheduleName, since, pageToken);
        const [jobs, , response] = await calling(clients, "ListPipelineJobs", () =>
          clients.pipelines.listPipelineJobs(request, { autoPaginate: false }),
        );
        found.push(...vertexScheduledCompletions(jobs as VertexJob[], wanted.artifacts));
        pageToken = response?.nextPageToken ?? undefined;
        if (!pageToken) break;
      }
      return found;
    },
  };
}
