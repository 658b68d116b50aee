CREATE TABLE `dashboard_revisions` (
	`dashboard_id` text NOT NULL,
	`document_revision` integer NOT NULL,
	`author_user_id` text,
	`document` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`dashboard_id`, `document_revision`),
	FOREIGN KEY (`dashboard_id`) REFERENCES `dashboards`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "dashboard_revisions_document_revision_check" CHECK("dashboard_revisions"."document_revision" >= 1)
);
