CREATE TABLE `audit_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor_user_id` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text,
	`metadata` text DEFAULT '{}' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_events_created_at_id_idx` ON `audit_events` ("created_at" DESC,"id" DESC);--> statement-breakpoint
CREATE INDEX `audit_events_action_idx` ON `audit_events` (`action`);--> statement-breakpoint
CREATE TABLE `broker_profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`protocol` text DEFAULT 'mqtt' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`broker_url` text NOT NULL,
	`tls` text,
	`credential_profile_id` text,
	`allow_public_use` integer DEFAULT false NOT NULL,
	`topic_allowlist` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`credential_profile_id`) REFERENCES `credential_profiles`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `broker_profiles_name_unique` ON `broker_profiles` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `credential_profiles` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`allow_public_use` integer DEFAULT false NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	`secret_envelope` text,
	`secret_shape` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "credential_profiles_type_check" CHECK("credential_profiles"."type" IN ('none', 'header', 'bearer', 'basic'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credential_profiles_name_unique` ON `credential_profiles` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `dashboard_acl` (
	`dashboard_id` text NOT NULL,
	`user_id` text NOT NULL,
	`access_level` text NOT NULL,
	`granted_by` text,
	`granted_at` text NOT NULL,
	PRIMARY KEY(`dashboard_id`, `user_id`),
	FOREIGN KEY (`dashboard_id`) REFERENCES `dashboards`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`granted_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "dashboard_acl_access_level_check" CHECK("dashboard_acl"."access_level" IN ('viewer', 'editor'))
);
--> statement-breakpoint
CREATE INDEX `dashboard_acl_user_id_idx` ON `dashboard_acl` (`user_id`);--> statement-breakpoint
CREATE TABLE `dashboards` (
	`id` text PRIMARY KEY NOT NULL,
	`title` text NOT NULL,
	`version` text NOT NULL,
	`image` text,
	`datasources` text DEFAULT '[]' NOT NULL,
	`columns` integer DEFAULT 3 NOT NULL,
	`width` text DEFAULT 'md' NOT NULL,
	`panes` text DEFAULT '[]' NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`visibility` text NOT NULL,
	`share_token` text,
	`share_token_version` integer DEFAULT 1 NOT NULL,
	`document_revision` integer DEFAULT 1 NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE restrict,
	CONSTRAINT "dashboards_visibility_check" CHECK("dashboards"."visibility" IN ('private', 'link', 'public')),
	CONSTRAINT "dashboards_share_token_check" CHECK(("dashboards"."visibility" = 'private') = ("dashboards"."share_token" IS NULL)),
	CONSTRAINT "dashboards_share_token_version_check" CHECK("dashboards"."share_token_version" >= 1),
	CONSTRAINT "dashboards_document_revision_check" CHECK("dashboards"."document_revision" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dashboards_share_token_unique` ON `dashboards` (`share_token`);--> statement-breakpoint
CREATE INDEX `dashboards_owner_id_idx` ON `dashboards` (`owner_id`);--> statement-breakpoint
CREATE INDEX `dashboards_visibility_updated_at_idx` ON `dashboards` (`visibility`,`updated_at`);--> statement-breakpoint
CREATE TABLE `invites` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`accepted_at` text,
	`created_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	CONSTRAINT "invites_role_check" CHECK("invites"."role" IN ('viewer', 'editor'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `invites_token_hash_unique` ON `invites` (`token_hash`);--> statement-breakpoint
CREATE INDEX `invites_email_idx` ON `invites` (`email`);--> statement-breakpoint
CREATE TABLE `password_reset_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`issued_by` text,
	`expires_at` text NOT NULL,
	`used_at` text,
	`revoked_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`issued_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `password_reset_tokens_token_hash_unique` ON `password_reset_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `password_reset_tokens_user_id_idx` ON `password_reset_tokens` (`user_id`);--> statement-breakpoint
CREATE TABLE `policy` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text
);
--> statement-breakpoint
CREATE TABLE `security_limiter_state` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	`window_started_at` text NOT NULL,
	`lock_until` text,
	`reported` integer DEFAULT false NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `security_limiter_state_expires_at_idx` ON `security_limiter_state` (`expires_at`);--> statement-breakpoint
CREATE TABLE `service_account_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`service_account_id` text NOT NULL,
	`label` text,
	`token_hash` text NOT NULL,
	`token_prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`last_used_at` text,
	`created_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`service_account_id`) REFERENCES `service_accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_account_tokens_token_hash_unique` ON `service_account_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `service_account_tokens_service_account_id_idx` ON `service_account_tokens` (`service_account_id`);--> statement-breakpoint
CREATE TABLE `service_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`scopes` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`last_used_at` text,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `service_accounts_name_unique` ON `service_accounts` ("name" COLLATE NOCASE);--> statement-breakpoint
CREATE TABLE `share_token_revocation_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dashboard_id` text NOT NULL,
	`share_token_version` integer NOT NULL,
	`reason` text NOT NULL,
	`revoked_at` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `share_token_revocation_events_created_at_idx` ON `share_token_revocation_events` (`created_at`);--> statement-breakpoint
CREATE INDEX `share_token_revocation_events_dashboard_id_idx` ON `share_token_revocation_events` (`dashboard_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`role` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`session_version` integer DEFAULT 0 NOT NULL,
	`registration_date` text NOT NULL,
	`last_login` text NOT NULL,
	CONSTRAINT "users_role_check" CHECK("users"."role" IN ('viewer', 'editor', 'admin')),
	CONSTRAINT "users_session_version_check" CHECK("users"."session_version" >= 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE INDEX `users_role_active_idx` ON `users` (`role`,`active`);