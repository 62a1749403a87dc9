import type { TAgent } from '@pm/contracts';
import { DetailList } from '../../../components/ui/DetailList.tsx';
import { countryName } from '../../../lib/countries.ts';
import { activityLabel, formatDuration, maskIp } from '../../../lib/format/agent.ts';
import { useNow } from '../../../lib/useNow.ts';

/** The proxy detail's Info tab (rules §2): Domain or IP, place, ISP, IP Address, Uptime, Activity. */
export function AgentInfoPanel({ agent }: { agent: TAgent }) {
  const now = useNow();
  const ip = maskIp(agent.ip);
  return (
    <DetailList
      testId="agent-info"
      items={[
        // The host name's hidden first label arrives as underscores too, and is shown the same way.
        { label: 'Domain or IP', value: maskIp(agent.host) || ip },
        { label: 'Country', value: countryName(agent.loc.cc) },
        { label: 'City', value: agent.loc.city },
        { label: 'State', value: agent.loc.reg },
        { label: 'Zip', value: agent.loc.zip },
        { label: 'Isp', value: agent.loc.isp },
        { label: 'IP Address', value: ip },
        { label: 'Uptime', value: formatDuration(agent.firstSeen, now) },
        { label: 'Activity', value: activityLabel(agent.actv) },
        { label: 'Probe Activity', value: activityLabel(agent.probeActv) },
      ]}
    />
  );
}
