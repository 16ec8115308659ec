// The mutation suite of the shipped runbooks, group "resize-vpc-dev-services": its runbooks and test files are in
// test/helpers/shipped-mutation-groups.ts, what it proves in test/helpers/shipped-mutation-suite.ts.
import { describeMutationGroup } from '../helpers/shipped-mutation-suite';

describeMutationGroup('resize-vpc-dev-services');
