// The mutation suite of the shipped runbooks, group "replica-ha-fleet": its runbooks and test files are in
// test/helpers/shipped-mutation-groups.ts, what it proves in test/helpers/shipped-mutation-suite.ts.
import { describeMutationGroup } from '../helpers/shipped-mutation-suite';

describeMutationGroup('replica-ha-fleet');
