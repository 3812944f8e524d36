/**
 * The runs a KFP recurring run starts: ListRuns filtered by the recurring run's id, oldest first,
 * from `since` (src/pipelines/events/scheduled.ts). KFP has nothing a client may write on a run,
 * so nothing is marked: the RunSchedule's records are the mark.
 */
import type { Client } from "../../kube/types.ts";
import type { ScheduledCompletion, ScheduledRuns } from "../events/scheduled.ts";
import type { OutboundPolicy } from "../outbound-policy.ts";
import { type KfpRun, kfpScheduledCompletions } from "./completion.ts";
import { kfpConnectionAt } from "./connection.ts";
import { api, scheduledRunsPage, scheduledRunsQuery } from "./requests.ts";

interface ListRuns {
  runs?: KfpRun[];
  next_page_token?: string;
}

export function kfpScheduledRuns(client: Client, outbound: OutboundPolicy): ScheduledRuns {
  return {
    async completed(provider, recurringRunId, wanted, since) {
      const { http, settings } = kfpConnectionAt(client, provider, outbound);
      const found: ScheduledCompletion[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < scheduledRunsPage.pages; page += 1) {
        const query = scheduledRunsQuery(recurringRunId, since, settings, pageToken);
        const listed = await http.request<ListRuns>("GET", `${api}/runs`, { query });
        found.push(...kfpScheduledCompletions(listed.runs ?? [], wanted.artifacts));
        pageToken = listed.next_page_token;
        if (!pageToken) break;
      }
      return found;
    },
  };
}
