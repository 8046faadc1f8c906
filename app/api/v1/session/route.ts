import { login } from "@/lib/api/login.ts";
import { withApi } from "@/lib/api/errors.ts";
import { LoginThrottle, throttleLimits } from "@/lib/auth/throttle.ts";

export const dynamic = "force-dynamic";

const throttle = new LoginThrottle(throttleLimits());

export const POST = withApi((request: Request) => login(request, throttle));
